/** The portal's one typed client for its own API at /portal/api (session cookie + CSRF header). */
import { ApiError, fieldProblems } from './errors';

export { ApiError };

type Query = Record<string, string | number | boolean | null | undefined>;

let csrfToken: string | null = null;

/** Set from the session answer; sent on every request that changes something. */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Called when any request answers 401, so the app can return to the sign-in page. */
let onSignedOut: (() => void) | null = null;
export function onSessionEnded(listener: (() => void) | null): void {
  onSignedOut = listener;
}

function urlOf(path: string, query?: Query): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  }
  const search = params.toString();
  return `/portal/api${path}${search ? `?${search}` : ''}`;
}

/** `body` is sent as JSON, or a FormData as multipart (the browser sets its Content-Type with the boundary). */
async function request<T>(method: string, path: string, body?: unknown, query?: Query): Promise<T> {
  const form = body instanceof FormData;
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined && !form) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  let response: Response;
  try {
    response = await fetch(urlOf(path, query), {
      method,
      headers,
      credentials: 'same-origin',
      body: form ? body : body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'network_error', 'The appliance could not be reached. Is it still running?');
  }
  const envelope = (await response.json().catch(() => null)) as
    { success: true; data: T } | { success: false; error: string; message: string; details?: unknown } | null;
  if (envelope?.success) return envelope.data;
  const code = envelope && !envelope.success ? envelope.error : 'internal_error';
  const message = envelope && !envelope.success ? envelope.message : `The appliance answered ${response.status}.`;
  if (response.status === 401 && path !== '/login') onSignedOut?.();
  throw new ApiError(response.status, code, message, envelope && !envelope.success ? fieldProblems(envelope.details) : []);
}

export const api = {
  get: <T>(path: string, query?: Query) => request<T>('GET', path, undefined, query),
  post: <T>(path: string, body?: unknown) => request<T>('POST', path, body ?? {}),
  put: <T>(path: string, body?: unknown) => request<T>('PUT', path, body ?? {}),
  patch: <T>(path: string, body?: unknown) => request<T>('PATCH', path, body ?? {}),
  del: <T>(path: string) => request<T>('DELETE', path),
  /** A multipart POST (an upload: the form's fields, such as one `file`), answered and refused as the others. */
  upload: <T>(path: string, form: FormData, query?: Query) => request<T>('POST', path, form, query),
};

/** A page of a list, as the API answers it (`?page=&limit=`). */
export interface Page<T> {
  items: T[];
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}
