import type { z } from 'zod';
import { validationError, type ValidationDetail } from '../errors.js';

export function zodDetails(error: z.ZodError): ValidationDetail[] {
  const details: ValidationDetail[] = [];
  for (const issue of error.issues) {
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) details.push({ path: base ? `${base}.${key}` : key, message: 'Unknown field.' });
    } else {
      details.push({ path: base, message: issue.message });
    }
  }
  return details;
}

/** Parses input with a schema; failures become `422 validation_error` with `details`. */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input);
  if (!result.success) throw validationError(zodDetails(result.error));
  return result.data;
}
