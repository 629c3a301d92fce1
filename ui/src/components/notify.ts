import { notifications } from '@mantine/notifications';
import { ApiError } from '../api/client';

export function notifySuccess(message: string): void {
  notifications.show({ color: 'teal', title: 'Done', message, autoClose: 4000 });
}

/** A toast naming what went wrong: the API's own message, which says what to change. */
export function notifyError(error: unknown): void {
  const message = error instanceof Error ? error.message : 'Something went wrong.';
  const title = error instanceof ApiError && error.status === 403 ? 'Not allowed' : 'That did not work';
  notifications.show({ color: 'red', title, message, autoClose: 8000 });
}
