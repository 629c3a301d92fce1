import { Alert } from '@mantine/core';
import { ApiError } from '../api/portal';

/** A failed read, said plainly; a 403 explains that the role does not allow it. */
export function QueryError({ error }: { error: unknown }) {
  if (!error) return null;
  const forbidden = error instanceof ApiError && error.status === 403;
  return (
    <Alert color={forbidden ? 'yellow' : 'red'} title={forbidden ? 'Not available to your role' : 'Could not load this'} role="alert">
      {error instanceof Error ? error.message : 'Something went wrong.'}
    </Alert>
  );
}
