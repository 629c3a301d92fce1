/** The learner side of the API (/v1/sso/exchange and /v1/app/*), typed for the /launch page. */
import type { z } from 'zod';
import type {
  attemptSchema,
  eventsAccepted,
  learnerDeviceList,
  learnerDeviceSchema,
  learnerExamList,
  learnerExamSchema,
  learnerUserSchema,
  submissionReceiptSchema,
} from '../../../server/routes/learner/schema';
import type { recordingList, recordingSchema } from '../../../server/routes/learner/recordings.schema';
import type { sessionSchema } from '../../../server/routes/sso/schema';
import type { gradingPage, gradingSubmissionSchema } from '../../../server/routes/learner/grading.schema';
import type { submissionSchema } from '../../../server/routes/submissions/schema';
import { ApiError } from '../api/errors';

export { ApiError };

/** The learner side's wire types: type-only imports of the server's schemas (z.input: the JSON the handler returns). */
export type LearnerUser = z.input<typeof learnerUserSchema>;
export type Role = LearnerUser['role'];
export type LearnerSession = z.input<typeof sessionSchema>;
export type LearnerExam = z.input<typeof learnerExamSchema>;
export type LearnerExamList = z.input<typeof learnerExamList>;
export type Attempt = z.input<typeof attemptSchema>;
export type SubmissionReceipt = z.input<typeof submissionReceiptSchema>;
export type SubmissionStatus = SubmissionReceipt['status'];
export type EventsAccepted = z.input<typeof eventsAccepted>;
export type LearnerDevice = z.input<typeof learnerDeviceSchema>;
export type LearnerDeviceList = z.input<typeof learnerDeviceList>;
export type Recording = z.input<typeof recordingSchema>;
export type RecordingSource = Recording['source'];
export type CodeSpec = NonNullable<LearnerExam['code_spec']>;
export type ExamArchive = LearnerExam['files'][number];

export type GradingPage = z.input<typeof gradingPage>;
export type GradingRow = GradingPage['items'][number];
export type GradingSubmission = z.input<typeof gradingSubmissionSchema>;
export type GradedSubmission = z.input<typeof submissionSchema>;

export interface Timed<T> {
  data: T;
  /** Server clock minus this device's clock, in ms, from the response's `Date` header (0 when absent). */
  clockOffsetMs: number;
}

interface RequestOptions {
  method?: 'GET' | 'POST';
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as multipart instead of `body` (the browser sets its Content-Type). */
  form?: FormData;
  session?: string;
}

/** One call of the learner side: a refusal is an ApiError with the API's code and message. */
export async function request<T>(path: string, options: RequestOptions = {}): Promise<Timed<T>> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  if (options.session) headers.Authorization = `Bearer ${options.session}`;
  let res: Response;
  try {
    res = await fetch(`/v1${path}`, {
      method: options.method ?? 'GET',
      headers,
      body: options.form ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
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

/** Without `device` no seat is taken (a framed page that can keep no device id). */
export const exchangeLaunchToken = (token: string, device: { id: string; name: string } | undefined) =>
  request<LearnerSession>('/sso/exchange', { method: 'POST', body: device ? { token, device } : { token } }).then((res) => res.data);

/** With the clock offset: an open attempt's time left is counted against the server's clock. */
export const listMyExams = (session: string) =>
  request<LearnerExamList>('/app/exams', { session }).then((res) => ({ data: res.data.items, clockOffsetMs: res.clockOffsetMs }));

/** One exam with fresh archive links (each lives 15 minutes). */
export const getMyExam = (session: string, examId: string) =>
  request<LearnerExam>(`/app/exams/${encodeURIComponent(examId)}`, { session }).then((res) => res.data);

export const listMyDevices = (session: string) => request<LearnerDeviceList>('/app/devices', { session }).then((res) => res.data.items);

export const releaseDevice = (session: string, seatId: string) =>
  request<LearnerDevice>(`/app/devices/${encodeURIComponent(seatId)}/release`, { method: 'POST', session }).then((res) => res.data);

export const startAttempt = (session: string, examId: string) =>
  request<Attempt>(`/app/exams/${encodeURIComponent(examId)}/attempts`, { method: 'POST', session });

export const recordFocusLost = (session: string, attemptId: string, at: Date) =>
  request<EventsAccepted>(`/app/attempts/${encodeURIComponent(attemptId)}/events`, {
    method: 'POST',
    session,
    body: { events: [{ type: 'focus_lost', at: at.toISOString() }] },
  }).then((res) => res.data);

export const recordRecorderError = (session: string, attemptId: string, detail: { source: RecordingSource; reason: string; message: string }) =>
  request<EventsAccepted>(`/app/attempts/${encodeURIComponent(attemptId)}/events`, {
    method: 'POST',
    session,
    body: { events: [{ type: 'recorder_error', at: new Date().toISOString(), detail }] },
  }).then((res) => res.data);

const recordingsPath = (attemptId: string) => `/app/attempts/${encodeURIComponent(attemptId)}/recordings`;

export const startRecording = (session: string, attemptId: string, source: RecordingSource, mimeType: string) =>
  request<Recording>(recordingsPath(attemptId), { method: 'POST', session, body: { source, mime_type: mimeType } }).then((res) => res.data);

export const listRecordings = (session: string, attemptId: string) =>
  request<z.input<typeof recordingList>>(recordingsPath(attemptId), { session }).then((res) => res.data.items);

export function sendRecordingChunk(session: string, attemptId: string, recordingId: string, seq: number, chunk: Blob) {
  const form = new FormData();
  form.append('file', chunk, `chunk-${seq}.webm`);
  return request<Recording>(`${recordingsPath(attemptId)}/${encodeURIComponent(recordingId)}/chunks?seq=${seq}`, { method: 'POST', session, form }).then(
    (res) => res.data,
  );
}

export const finishRecording = (session: string, attemptId: string, recordingId: string) =>
  request<Recording>(`${recordingsPath(attemptId)}/${encodeURIComponent(recordingId)}/finish`, { method: 'POST', session }).then((res) => res.data);

export const submitAttempt = (session: string, attemptId: string, answer: string) =>
  request<SubmissionReceipt>(`/app/attempts/${encodeURIComponent(attemptId)}/submit`, {
    method: 'POST',
    session,
    body: { answers: { text: answer } },
  }).then((res) => res.data);

/** Grading from the LMS (an instructor's launch): the exam and a page of its submissions. */
export const getGrading = (session: string, page: number) => request<GradingPage>(`/app/grading?page=${page}&limit=50`, { session }).then((res) => res.data);

export const getGradingSubmission = (session: string, submissionId: string) =>
  request<GradingSubmission>(`/app/grading/submissions/${encodeURIComponent(submissionId)}`, { session }).then((res) => res.data);

/** `score` -1 asks the student for a resubmission. */
export const gradeFromLms = (session: string, submissionId: string, grade: { score: number; feedback?: string }) =>
  request<GradedSubmission>(`/app/grading/submissions/${encodeURIComponent(submissionId)}/grade`, { method: 'POST', session, body: grade }).then(
    (res) => res.data,
  );
