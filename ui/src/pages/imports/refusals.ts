import { ApiError } from '../../api/errors';
import { messageInWords, type FieldLabels } from '../../api/fieldErrors';

/**
 * A request's refusal of what one row (or one class) asked for, in words with the import's labels:
 * that is the row's outcome. Anything else (the appliance unreachable, the session ended, too many
 * requests) is thrown on, and stops the import where it is.
 */
export function refusalInWords(error: unknown, labels: FieldLabels): string {
  if (error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 401 && error.status !== 429) {
    return messageInWords(error.message, labels);
  }
  throw error;
}

/** `work` on each item, four requests at a time: the appliance's writes are quick, and a school's file is not sent all at once. */
export async function fourAtATime<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += 4) results.push(...(await Promise.all(items.slice(start, start + 4).map(work))));
  return results;
}
