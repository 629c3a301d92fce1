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

/** Paths of strings holding a NUL character: SQLite would silently cut the statement there. */
function nulPaths(value: unknown, path: string, found: ValidationDetail[]): void {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) found.push({ path, message: 'Must not contain NUL characters.' });
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => nulPaths(item, path ? `${path}.${index}` : String(index), found));
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      nulPaths(key, path, found);
      nulPaths(item, path ? `${path}.${key}` : key, found);
    }
  }
}

/** Parses input with a schema; failures become `422 validation_error` with `details`. */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const nul: ValidationDetail[] = [];
  nulPaths(input, '', nul);
  if (nul.length > 0) throw validationError(nul);
  const result = schema.safeParse(input);
  if (!result.success) throw validationError(zodDetails(result.error));
  return result.data;
}
