import { Alert, List, Stack, Text } from '@mantine/core';
import { ApiError } from '../../api/portal';

const PROBLEMS_LISTED = 5;

/** A refused import: the server's message, and the first problems it does not already name as `path: message` lines. */
export function ImportError({ error }: { error: Error }) {
  const details = error instanceof ApiError ? error.details.filter((detail) => !error.message.includes(`${detail.path}: ${detail.message}`)) : [];
  return (
    <Alert color="red" role="alert" title={error instanceof ApiError && error.status === 422 ? 'The zip was not imported' : 'That did not work'}>
      <Stack gap="xs">
        <Text size="sm">{error.message}</Text>
        {details.length > 0 ? (
          <List size="sm">
            {details.slice(0, PROBLEMS_LISTED).map((detail) => (
              <List.Item key={`${detail.path}: ${detail.message}`}>
                {detail.path}: {detail.message}
              </List.Item>
            ))}
            {details.length > PROBLEMS_LISTED ? <List.Item>and {details.length - PROBLEMS_LISTED} more</List.Item> : null}
          </List>
        ) : null}
      </Stack>
    </Alert>
  );
}
