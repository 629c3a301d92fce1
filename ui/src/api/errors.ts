/** One problem of a `422 validation_error`: the API field (`personal_email`, `events.2`) and what is wrong with it. */
export interface FieldProblem {
  path: string;
  message: string;
}

/**
 * A refusal of the appliance's API (the portal's or the learner side's): HTTP status, the
 * API error code (`forbidden`, `LAUNCH_TOKEN_INVALID`, …; docs/api.md#error-codes), its message,
 * and for a validation error the problem of each field (ui/src/api/fieldErrors.ts puts them in words).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: readonly FieldProblem[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** `details` as the envelope has them, keeping only well-formed entries. */
export function fieldProblems(details: unknown): FieldProblem[] {
  if (!Array.isArray(details)) return [];
  return details.filter(
    (item): item is FieldProblem => typeof item === 'object' && item !== null && typeof item.path === 'string' && typeof item.message === 'string',
  );
}
