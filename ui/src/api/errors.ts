/**
 * A refusal of the appliance's API (the portal's or the learner side's): HTTP status, the
 * API error code (`forbidden`, `LAUNCH_TOKEN_INVALID`, …; docs/api.md#error-codes) and its message.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}
