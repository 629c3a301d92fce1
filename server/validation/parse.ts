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

/** Deeper input than this is refused before anything walks it; no operation needs more than a few levels. */
export const MAX_INPUT_DEPTH = 32;

/**
 * Refusals found by walking the input once, without recursion: strings holding a NUL character
 * (SQLite would silently cut the statement there), and nesting deeper than MAX_INPUT_DEPTH.
 */
function inputProblems(input: unknown): ValidationDetail[] {
  const found: ValidationDetail[] = [];
  const pending: Array<{ value: unknown; path: string; depth: number }> = [{ value: input, path: '', depth: 0 }];
  while (pending.length > 0) {
    const { value, path, depth } = pending.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) found.push({ path, message: 'Must not contain NUL characters.' });
      continue;
    }
    if (!value || typeof value !== 'object') continue;
    if (depth >= MAX_INPUT_DEPTH) {
      found.push({ path, message: `Nested deeper than ${MAX_INPUT_DEPTH} levels.` });
      continue;
    }
    const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
    for (const [key, item] of entries) {
      if (key.includes('\u0000')) found.push({ path, message: 'Must not contain NUL characters.' });
      pending.push({ value: item, path: path ? `${path}.${key}` : key, depth: depth + 1 });
    }
  }
  return found;
}

/** Parses input with a schema; failures become `422 validation_error` with `details`. */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const problems = inputProblems(input);
  if (problems.length > 0) throw validationError(problems.slice(0, 20));
  const result = schema.safeParse(input);
  if (!result.success) throw validationError(zodDetails(result.error));
  return result.data;
}
