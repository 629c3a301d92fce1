import { notifications } from '@mantine/notifications';
import { ApiError } from '../api/portal';
import { errorInWords, type FieldLabels } from '../api/fieldErrors';

export function notifySuccess(message: string): void {
  notifications.show({ color: 'teal', title: 'Done', message, autoClose: 4000 });
}

/** A toast naming what went wrong: the API's own message, each field's problem with the form's label for it. */
export function notifyError(error: unknown, labels: FieldLabels = {}): void {
  const message = errorInWords(error, labels);
  const title = error instanceof ApiError && error.status === 403 ? 'Not allowed' : 'That did not work';
  notifications.show({ color: 'red', title, message, autoClose: 8000 });
}
