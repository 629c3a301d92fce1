/** Error codes of the API (docs/api.md#error-codes), with the HTTP status each one answers with. */
export const ERROR_STATUS = {
  institution_required: 400,
  /** The request itself is malformed before any route can read it (a bad `%` escape in the path). */
  bad_request: 400,
  unauthorized: 401,
  invalid_api_key: 401,
  LAUNCH_TOKEN_INVALID: 401,
  insufficient_scope: 403,
  forbidden: 403,
  institution_not_approved: 403,
  /** A valid LTI launch whose roles name neither a learner nor a teacher (docs/lms.md#roles). */
  role_not_supported: 403,
  not_found: 404,
  user_not_found: 404,
  no_secret: 404,
  conflict: 409,
  already_added: 409,
  already_verified: 409,
  user_inactive: 409,
  insufficient_allowance: 409,
  endpoint_inactive: 409,
  void_failed: 409,
  /** A class list sync of an LTI link whose platform never offered Names and Role Provisioning (no memberships URL from a launch). */
  nrps_not_offered: 409,
  event_pruned: 410,
  /** A stored file whose bytes are no longer in the data folder (a move or a restore without `uploads/`). */
  file_missing: 410,
  validation_error: 422,
  invalid_faculty: 422,
  invalid_scopes: 422,
  no_owner: 422,
  no_valid_students: 422,
  https_required: 422,
  private_host: 422,
  events_required: 422,
  endpoint_limit: 422,
  key_limit: 422,
  file_too_large: 422,
  /** A `Content-Encoding` or charset the appliance does not decode. */
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  rate_limiter_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ValidationDetail {
  path: string;
  message: string;
}

/** An error the API answers with as-is: a code of docs/api.md#error-codes, a message and optional extra fields. */
export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }
}

export const notFound = (what = 'resource') => new AppError('not_found', `No such ${what}.`);

export const validationError = (details: ValidationDetail[], message?: string) =>
  new AppError('validation_error', message ?? describeDetails(details), { details });

function describeDetails(details: ValidationDetail[]): string {
  const first = details[0];
  if (!first) return 'The request is not valid.';
  const more = details.length > 1 ? ` (and ${details.length - 1} more)` : '';
  return `${first.path ? `${first.path}: ` : ''}${first.message}${more}`;
}
