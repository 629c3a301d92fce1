import { notifications } from '@mantine/notifications';
import { ApiError } from '../api/portal';
import { errorInWords, type FieldLabels } from '../api/fieldErrors';

/** The toast's close button shows only an ×: its name is said here, for screen readers and voice control. */
const closeButtonProps = { 'aria-label': 'Dismiss this message' };

export function notifySuccess(message: string): void {
  notifications.show({ color: 'teal', title: 'Done', message, autoClose: 4000, closeButtonProps });
}

/** A toast naming what went wrong: the API's own message, each field's problem with the form's label for it. */
export function notifyError(error: unknown, labels: FieldLabels = {}): void {
  const message = errorInWords(error, labels);
  const title = error instanceof ApiError && error.status === 403 ? 'Not allowed' : 'That did not work';
  notifications.show({ color: 'red', title, message, autoClose: 8000, closeButtonProps });
}
