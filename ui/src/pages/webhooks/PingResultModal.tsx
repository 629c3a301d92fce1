import { Alert, Button, Code, Group, Modal, Stack, Text } from '@mantine/core';
import type { PingResult, WebhookEndpoint } from './webhooks';

/** What the receiver answered to a test ping. */
export function PingResultModal({ endpoint, result, onClose }: { endpoint: WebhookEndpoint; result: PingResult; onClose(): void }) {
  return (
    <Modal opened onClose={onClose} title="Test ping" size="lg">
      <Stack>
        <Alert color={result.delivered ? 'teal' : 'red'} title={result.delivered ? 'Delivered' : 'Not delivered'} role="status">
          {result.delivered
            ? `${endpoint.url} answered ${result.response_status} in ${result.response_time_ms} ms.`
            : result.response_status === null
              ? `No answer from ${endpoint.url} (timed out, refused or unreachable) after ${result.response_time_ms} ms.`
              : `${endpoint.url} answered ${result.response_status} in ${result.response_time_ms} ms; only a 2xx counts as delivered.`}
        </Alert>
        {result.response_body ? (
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              Response body
            </Text>
            <Code block tabIndex={0} role="region" aria-label="Response body" style={{ maxHeight: 240, overflow: 'auto' }}>
              {result.response_body}
            </Code>
          </Stack>
        ) : null}
        <Text size="xs" c="dimmed">
          A ping is a signed webhook.ping event. It is not stored as a delivery and does not count toward failures.
        </Text>
        <Group justify="flex-end">
          <Button onClick={onClose}>Close</Button>
        </Group>
      </Stack>
    </Modal>
  );
}
