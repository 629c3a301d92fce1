/**
 * The portal's client for its own API at /portal/api: openapi-fetch typed by the portal's OpenAPI
 * document (ui/src/api/generated/portal.ts, `npm run client:generate`), so every path, parameter,
 * body and answer the UI uses is one the server declares, and a renamed route fails `tsc`.
 *
 *   const students = await call(portal.GET('/institutions/{institution}/students', {
 *     params: { path: { institution: id }, query: { page: 1 } },
 *   }));
 *
 * `call` unwraps the envelope: the answer's `data`, or an ApiError with the API's code, message
 * and field problems. The session cookie goes with every request; the CSRF header with every
 * request that changes something.
 */
import createClient from 'openapi-fetch';
import { ApiError, fieldProblems } from './errors';
import type { paths } from './generated/portal';

export { ApiError };
export type { paths as PortalPaths } from './generated/portal';

let csrfToken: string | null = null;

/** Set from the session answer; sent on every request that changes something. */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Called when any request but sign-in answers 401, so the app can return to the sign-in page. */
let onSignedOut: (() => void) | null = null;
export function onSessionEnded(listener: (() => void) | null): void {
  onSignedOut = listener;
}

/** Query values as the pages hold them: an empty filter, null or undefined is left out of the URL. */
function queryString(query: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    params.set(name, String(value));
  }
  return params.toString();
}

export const portal = createClient<paths>({ baseUrl: '/portal/api', credentials: 'same-origin', querySerializer: queryString });

portal.use({
  onRequest({ request }) {
    request.headers.set('Accept', 'application/json');
    if (request.method !== 'GET' && request.method !== 'HEAD' && csrfToken) request.headers.set('X-CSRF-Token', csrfToken);
    return request;
  },
});

/** What a call of `portal` resolves to: the parsed success body, or the parsed refusal. */
interface Answer {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** The `data` of an operation's success envelope. */
export type Answered<A> = A extends { data: { success: true; data: infer Data } } ? Data : never;

interface Refusal {
  error?: unknown;
  message?: unknown;
  details?: unknown;
}

/** Waits for a call of `portal` and answers its `data`, or throws the refusal as an ApiError. */
export async function call<A extends Answer>(pending: Promise<A>): Promise<Answered<A>> {
  let answer: A;
  try {
    answer = await pending;
  } catch {
    throw new ApiError(0, 'network_error', 'The appliance could not be reached. Is it still running?');
  }
  const body = answer.data as { success?: boolean; data?: unknown } | undefined;
  if (answer.response.ok && body?.success === true) return body.data as Answered<A>;
  const refusal = (typeof answer.error === 'object' && answer.error !== null ? answer.error : {}) as Refusal;
  const { status } = answer.response;
  if (status === 401 && !new URL(answer.response.url, window.location.href).pathname.endsWith('/portal/api/login')) onSignedOut?.();
  throw new ApiError(
    status,
    typeof refusal.error === 'string' ? refusal.error : 'internal_error',
    typeof refusal.message === 'string' ? refusal.message : `The appliance answered ${status}.`,
    fieldProblems(refusal.details),
  );
}

/** A list page as the API answers it (`?page=&limit=`). */
export interface Page<T> {
  items: T[];
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

/**
 * The URL of a download the browser fetches itself (an `<a href>`): a declared GET path with its
 * parameters filled in, so even links follow the document.
 */
export function portalHref<P extends keyof paths>(path: P, params: { path?: Record<string, string>; query?: Record<string, unknown> } = {}): string {
  const filled = String(path).replace(/\{(\w+)\}/g, (_whole, name: string) => encodeURIComponent(params.path?.[name] ?? ''));
  const search = queryString(params.query ?? {});
  return `/portal/api${filled}${search ? `?${search}` : ''}`;
}
