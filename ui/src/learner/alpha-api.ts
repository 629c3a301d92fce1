/** The learner side of Alpha Learning (/v1/app/alpha*), typed for the /launch page's practice view. */
import type { z } from 'zod';
import type { activityBody, activityResultSchema, ownAlphaSchema } from '../../../server/routes/alpha/schema';
import { ApiError } from '../api/errors';

export type OwnAlpha = z.input<typeof ownAlphaSchema>;
export type EnrolledCurriculum = OwnAlpha['curricula'][number];
export type ConceptMastery = EnrolledCurriculum['concepts'][number];
export type Badge = OwnAlpha['badges'][number];
export type ActivityInput = z.input<typeof activityBody>;
export type ActivityResult = z.input<typeof activityResultSchema>;

/** The same envelope handling as the page's other calls: a refusal is an ApiError with the API's code and message. */
async function call<T>(path: string, session: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json', Authorization: `Bearer ${session}` };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(`/v1${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
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
  return envelope.data as T;
}

export const getMyAlpha = (session: string) => call<OwnAlpha>('/app/alpha', session);

export const recordPractice = (session: string, activity: ActivityInput) => call<ActivityResult>('/app/alpha/activity', session, activity);
