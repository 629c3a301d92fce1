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
  attemptFileSchema,
  submissionReceiptSchema,
} from '../../../server/routes/learner/schema';
import type { recordingList, recordingSchema } from '../../../server/routes/learner/recordings.schema';
import type { sessionSchema } from '../../../server/routes/sso/schema';
import type { gradingPage, gradingSubmissionSchema } from '../../../server/routes/learner/grading.schema';
import type { submissionSchema } from '../../../server/routes/submissions/schema';
import createClient from 'openapi-fetch';
import type { paths } from '../../../server/client/generated/openapi';
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
export type AttemptFile = z.input<typeof attemptFileSchema>;

export type GradingPage = z.input<typeof gradingPage>;
export type GradingRow = GradingPage['items'][number];
export type GradingSubmission = z.input<typeof gradingSubmissionSchema>;
export type GradedSubmission = z.input<typeof submissionSchema>;

export interface Timed<T> {
  data: T;
  /** Server clock minus this device's clock, in ms, from the response's `Date` header (0 when absent). */
  clockOffsetMs: number;
}

/** The /v1 API, typed by its OpenAPI document (server/client/generated/openapi.ts, `npm run client:generate`). */
export const v1 = createClient<paths>({
  baseUrl: '/v1',
  cache: 'no-store',
  credentials: 'omit',
  headers: { Accept: 'application/json' },
  fetch: reach,
});

/** fetch at the time of the call; a request that gets no answer at all is a `network_error`. */
async function reach(request: Request): Promise<Response> {
  try {
    return await fetch(request);
  } catch {
    throw new ApiError(0, 'network_error', 'The appliance could not be reached. Check the connection and try again.');
  }
}

/** The learner session, as every /v1/app call sends it. */
export const bearer = (session: string) => ({ Authorization: `Bearer ${session}` });

/** What a call of `v1` resolves to: the parsed success body, or the parsed refusal. */
interface Answer {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** The `data` of an operation's success envelope. */
type Answered<A> = A extends { data: { success: true; data: infer Data } } ? Data : never;

/** One call of the learner side: a refusal is an ApiError with the API's code and message. */
export async function request<A extends Answer>(pending: Promise<A>): Promise<Timed<Answered<A>>> {
  let answer: A;
  try {
    answer = await pending;
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError(0, 'internal_error', 'The answer of the appliance could not be read.');
  }
  const { response } = answer;
  const envelope = (answer.data ?? answer.error) as { success?: boolean; data?: unknown; error?: unknown; message?: unknown } | undefined;
  if (!response.ok || typeof envelope !== 'object' || envelope === null || envelope.success !== true) {
    throw new ApiError(
      response.status,
      typeof envelope?.error === 'string' ? envelope.error : 'internal_error',
      typeof envelope?.message === 'string' ? envelope.message : `The request failed (${response.status}).`,
    );
  }
  const serverDate = Date.parse(response.headers.get('Date') ?? '');
  return { data: envelope.data as Answered<A>, clockOffsetMs: Number.isNaN(serverDate) ? 0 : serverDate - Date.now() };
}

/** Without `device` no seat is taken (a framed page that can keep no device id). */
export const exchangeLaunchToken = (token: string, device: { id: string; name: string } | undefined): Promise<LearnerSession> =>
  request(v1.POST('/sso/exchange', { body: device ? { token, device } : { token } })).then((res) => res.data);

/** With the clock offset: an open attempt's time left is counted against the server's clock. */
export const listMyExams = (session: string): Promise<Timed<LearnerExamList['items']>> =>
  request(v1.GET('/app/exams', { headers: bearer(session) })).then((res) => ({ data: res.data.items, clockOffsetMs: res.clockOffsetMs }));

/** One exam with fresh archive links (each lives 15 minutes). */
export const getMyExam = (session: string, examId: string): Promise<LearnerExam> =>
  request(v1.GET('/app/exams/{id}', { params: { path: { id: examId } }, headers: bearer(session) })).then((res) => res.data);

export const listMyDevices = (session: string): Promise<LearnerDeviceList['items']> =>
  request(v1.GET('/app/devices', { headers: bearer(session) })).then((res) => res.data.items);

export const releaseDevice = (session: string, seatId: string): Promise<LearnerDevice> =>
  request(v1.POST('/app/devices/{seatId}/release', { params: { path: { seatId } }, headers: bearer(session) })).then((res) => res.data);

export const startAttempt = (session: string, examId: string): Promise<Timed<Attempt>> =>
  request(v1.POST('/app/exams/{id}/attempts', { params: { path: { id: examId } }, headers: bearer(session) }));

export const recordFocusLost = (session: string, attemptId: string, at: Date): Promise<EventsAccepted> =>
  request(
    v1.POST('/app/attempts/{id}/events', {
      params: { path: { id: attemptId } },
      headers: bearer(session),
      body: { events: [{ type: 'focus_lost', at: at.toISOString() }] },
    }),
  ).then((res) => res.data);

export const recordRecorderError = (
  session: string,
  attemptId: string,
  detail: { source: RecordingSource; reason: string; message: string },
): Promise<EventsAccepted> =>
  request(
    v1.POST('/app/attempts/{id}/events', {
      params: { path: { id: attemptId } },
      headers: bearer(session),
      body: { events: [{ type: 'recorder_error', at: new Date().toISOString(), detail }] },
    }),
  ).then((res) => res.data);

export const startRecording = (session: string, attemptId: string, source: RecordingSource, mimeType: string): Promise<Recording> =>
  request(
    v1.POST('/app/attempts/{id}/recordings', {
      params: { path: { id: attemptId } },
      headers: bearer(session),
      body: { source, mime_type: mimeType },
    }),
  ).then((res) => res.data);

export const listRecordings = (session: string, attemptId: string): Promise<z.input<typeof recordingList>['items']> =>
  request(v1.GET('/app/attempts/{id}/recordings', { params: { path: { id: attemptId } }, headers: bearer(session) })).then((res) => res.data.items);

export function sendRecordingChunk(session: string, attemptId: string, recordingId: string, seq: number, chunk: Blob): Promise<Recording> {
  const form = new FormData();
  form.append('file', chunk, `chunk-${seq}.webm`);
  return request(
    v1.POST('/app/attempts/{id}/recordings/{recId}/chunks', {
      params: { path: { id: attemptId, recId: recordingId }, query: { seq } },
      headers: bearer(session),
      body: form as never,
    }),
  ).then((res) => res.data);
}

export const finishRecording = (session: string, attemptId: string, recordingId: string): Promise<Recording> =>
  request(
    v1.POST('/app/attempts/{id}/recordings/{recId}/finish', {
      params: { path: { id: attemptId, recId: recordingId } },
      headers: bearer(session),
    }),
  ).then((res) => res.data);

/** A file for the submission, kept by the appliance until the attempt is submitted with its `ref`. */
export function uploadAttemptFile(session: string, attemptId: string, file: File): Promise<AttemptFile> {
  const form = new FormData();
  form.append('file', file, file.name);
  return request(
    v1.POST('/app/attempts/{id}/files', {
      params: { path: { id: attemptId }, query: { kind: 'submission' } },
      headers: bearer(session),
      body: form as never,
    }),
  ).then((res) => res.data);
}

export const submitAttempt = (session: string, attemptId: string, answer: string, files: readonly AttemptFile[] = []): Promise<SubmissionReceipt> =>
  request(
    v1.POST('/app/attempts/{id}/submit', {
      params: { path: { id: attemptId } },
      headers: bearer(session),
      body: { answers: { text: answer }, ...(files.length > 0 ? { files: files.map((file) => file.ref) } : {}) },
    }),
  ).then((res) => res.data);

/** Grading from the LMS (an instructor's launch): the exam and a page of its submissions. */
export const getGrading = (session: string, page: number): Promise<GradingPage> =>
  request(v1.GET('/app/grading', { params: { query: { page, limit: 50 } }, headers: bearer(session) })).then((res) => res.data);

/** The document marks `answers` optional (any JSON may be absent); the handler always sends it, null when none. */
export const getGradingSubmission = (session: string, submissionId: string): Promise<GradingSubmission> =>
  request(v1.GET('/app/grading/submissions/{id}', { params: { path: { id: submissionId } }, headers: bearer(session) })).then(
    (res) => res.data as GradingSubmission,
  );

/** `score` -1 asks the student for a resubmission. */
export const gradeFromLms = (session: string, submissionId: string, grade: { score: number; feedback?: string }): Promise<GradedSubmission> =>
  request(
    v1.POST('/app/grading/submissions/{id}/grade', {
      params: { path: { id: submissionId } },
      headers: bearer(session),
      body: grade,
    }),
  ).then((res) => res.data);
