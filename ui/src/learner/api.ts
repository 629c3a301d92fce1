/** The learner side of the API (/v1/sso/exchange and /v1/app/*), typed for the /launch page. */
import { ApiError } from '../api/errors';

export { ApiError };

export type Role = 'student' | 'faculty';
export type SubmissionStatus = 'submitted' | 'graded' | 'resubmission_requested' | 'voided';

export interface LearnerUser {
  id: string;
  login_email: string;
  full_name: string;
  role: Role;
}

export interface LearnerSession {
  session_token: string;
  expires_at: string;
  user: LearnerUser;
  app: 'learning' | 'code';
  redirect: string | null;
}

export interface LearnerExam {
  id: string;
  title: string;
  exam_type: string;
  app: 'learning' | 'code';
  due_date: string | null;
  time_limit_minutes: number | null;
  max_score: number | null;
  proctoring: Record<string, unknown>;
  status: string;
  submission: { id: string; status: SubmissionStatus; score: number | null } | null;
}

export interface Attempt {
  id: string;
  exam_id: string;
  student_id: string;
  started_at: string;
  expires_at: string | null;
  submitted_at: string | null;
  hidden_released_at: string | null;
}

export interface SubmissionReceipt {
  id: string;
  exam_id: string;
  attempt_id: string;
  status: SubmissionStatus;
  submitted_at: string;
}

export interface Timed<T> {
  data: T;
  /** Server clock minus this device's clock, in ms, from the response's `Date` header (0 when absent). */
  clockOffsetMs: number;
}

async function request<T>(path: string, options: { method?: 'GET' | 'POST'; body?: unknown; session?: string } = {}): Promise<Timed<T>> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  if (options.session) headers.Authorization = `Bearer ${options.session}`;
  let res: Response;
  try {
    res = await fetch(`/v1${path}`, {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch {
    throw new ApiError(0, 'network_error', 'The appliance could not be reached. Check the connection and try again.');
  }
  const envelope = (await res.json().catch(() => null)) as { success?: boolean; data?: T; error?: string; message?: string } | null;
  if (!res.ok || !envelope?.success) {
    throw new ApiError(res.status, envelope?.error ?? 'internal_error', envelope?.message ?? `The request failed (${res.status}).`);
  }
  const serverDate = Date.parse(res.headers.get('Date') ?? '');
  return { data: envelope.data as T, clockOffsetMs: Number.isNaN(serverDate) ? 0 : serverDate - Date.now() };
}

export const exchangeLaunchToken = (token: string, device: { id: string; name: string }) =>
  request<LearnerSession>('/sso/exchange', { method: 'POST', body: { token, device } }).then((res) => res.data);

export const listMyExams = (session: string) => request<{ items: LearnerExam[] }>('/app/exams', { session }).then((res) => res.data.items);

export const startAttempt = (session: string, examId: string) =>
  request<Attempt>(`/app/exams/${encodeURIComponent(examId)}/attempts`, { method: 'POST', session });

export const recordFocusLost = (session: string, attemptId: string, at: Date) =>
  request<{ accepted: number }>(`/app/attempts/${encodeURIComponent(attemptId)}/events`, {
    method: 'POST',
    session,
    body: { events: [{ type: 'focus_lost', at: at.toISOString() }] },
  }).then((res) => res.data);

export const submitAttempt = (session: string, attemptId: string, answer: string) =>
  request<SubmissionReceipt>(`/app/attempts/${encodeURIComponent(attemptId)}/submit`, {
    method: 'POST',
    session,
    body: { answers: { text: answer } },
  }).then((res) => res.data);
