/** The learner side of Alpha Learning (/v1/app/alpha*), typed for the /launch page's practice view. */
import type { z } from 'zod';
import type { activityBody, activityResultSchema, ownAlphaSchema } from '../../../server/routes/alpha/schema-learner';
import { bearer, request, v1 } from './api';

export type OwnAlpha = z.input<typeof ownAlphaSchema>;
export type EnrolledCurriculum = OwnAlpha['curricula'][number];
export type ConceptMastery = EnrolledCurriculum['concepts'][number];
export type Badge = OwnAlpha['badges'][number];
export type ActivityInput = z.input<typeof activityBody>;
export type ActivityResult = z.input<typeof activityResultSchema>;

export const getMyAlpha = (session: string): Promise<OwnAlpha> => request(v1.GET('/app/alpha', { headers: bearer(session) })).then((res) => res.data);

export const recordPractice = (session: string, activity: ActivityInput): Promise<ActivityResult> =>
  request(v1.POST('/app/alpha/activity', { headers: bearer(session), body: activity })).then((res) => res.data);
