import { Button, Code, CopyButton, Group, Modal, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { call, portal } from '../../api/portal';
import { formatDateSeconds, useApiMutation } from '../../components';
import type { DeliveryCurl } from './debugging';

/**
 * "Copy as curl": the delivery as a curl command that sends the same body bytes and headers,
 * signed now (an attempt's own signatures are not stored, and would be past the 5-minute
 * tolerance anyway). Shown in a dialog with a copy button, since a browser may refuse the clipboard.
 */
export function CopyAsCurl({ institutionId, deliveryId }: { institutionId: string; deliveryId: string }) {
  const [curl, setCurl] = useState<DeliveryCurl | null>(null);
  const make = useApiMutation({
    mutationFn: () =>
      call(portal.POST('/institutions/{id}/webhook-debugging/deliveries/{deliveryId}/curl', { params: { path: { id: institutionId, deliveryId } } })),
    onSuccess: setCurl,
  });
  return (
    <>
      <Button variant="default" onClick={() => make.mutate()} loading={make.isPending}>
        Copy as curl
      </Button>
      <Modal opened={curl !== null} onClose={() => setCurl(null)} title="Copy as curl" size="xl">
        {curl ? (
          <Stack>
            <Text size="sm">
              The same body, byte for byte, and the same headers as an attempt, with signatures made now (
              {formatDateSeconds(new Date(curl.timestamp * 1000).toISOString())}) by the endpoint&apos;s current secrets: a receiver accepts them for 5 minutes.
              Receivers idempotent on the event id treat it as a repeat.
            </Text>
            <Code
              block
              tabIndex={0}
              role="region"
              aria-label="curl command"
              style={{ maxHeight: 360, overflow: 'auto', whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}
            >
              {curl.command}
            </Code>
            <Group justify="flex-end">
              <CopyButton value={curl.command}>
                {({ copied, copy }) => (
                  <Button variant={copied ? 'light' : 'filled'} color={copied ? 'teal' : 'blue'} onClick={copy}>
                    {copied ? 'Copied' : 'Copy command'}
                  </Button>
                )}
              </CopyButton>
              <Button variant="default" onClick={() => setCurl(null)}>
                Close
              </Button>
            </Group>
          </Stack>
        ) : null}
      </Modal>
    </>
  );
}
