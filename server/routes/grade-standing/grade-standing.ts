import { examGradeStandings, submissionGradeStanding, type GradeStanding } from '../../commands/lms/grade-standing.js';
import { defineRoute, type AnyPortalRoute } from '../../http/route.js';
import { iso } from '../../presenters/common.js';
import { z } from '../../validation/zod.js';

/**
 * Where a grade stands in each place it goes (docs/lms.md): the LMS through AGS and the SIS
 * through the OneRoster gradebook, the last score each took and the state of the newest one,
 * next to the grade here. Read from the appliance's own queues.
 */

const submissionParams = z.strictObject({ id: z.string().min(1).max(40), submissionId: z.string().min(1).max(40) });
const examParams = z.strictObject({ id: z.string().min(1).max(40), examId: z.string().min(1).max(40) });
const ROLES = ['admin', 'developer'] as const;

const destinationSchema = z.object({
  destination: z.enum(['lms', 'sis']).openapi({ description: '`lms`: an AGS line item; `sis`: a OneRoster gradebook result.' }),
  name: z.string().openapi({ description: "The platform's name, or the group the SIS class became." }),
  target: z.string().openapi({ description: 'The AGS line item URL, or the gradebook line item sourcedId.' }),
  sent_score: z.number().nullable().openapi({ description: 'The last score the destination took; null: none yet.' }),
  sent_at: z.string().nullable(),
  latest_score: z.number().nullable().openapi({ description: 'The newest score queued for the destination, the one `state` is about.' }),
  state: z.enum(['delivered', 'queued', 'failed']),
  error: z.string().nullable(),
  next_attempt_at: z.string().nullable(),
});

export const gradeStandingSchema = z.object({
  submission_id: z.string(),
  exam_id: z.string(),
  student_id: z.string(),
  score: z.number().nullable().openapi({ description: 'The grade here.' }),
  status: z.string(),
  destinations: z.array(destinationSchema),
  summary: z.string().openapi({ description: 'In words, as the portal shows it: "LMS has 7, SIS has 7, here 8: queued".' }),
});

function presentStanding({ submission, destinations, summary }: GradeStanding): z.input<typeof gradeStandingSchema> {
  return {
    submission_id: submission.id,
    exam_id: submission.exam_id,
    student_id: submission.student_id,
    score: submission.score === null ? null : Number(submission.score),
    status: submission.status,
    destinations: destinations.map((entry) => ({ ...entry, sent_at: iso(entry.sent_at), next_attempt_at: iso(entry.next_attempt_at) })),
    summary,
  };
}

export const gradeStandingRoutes: AnyPortalRoute[] = [
  defineRoute({
    method: 'get',
    path: '/institutions/{id}/grade-standing/submissions/{submissionId}',
    operationId: 'getSubmissionGradeStanding',
    tag: 'Grades',
    summary:
      "Where a submission's grade stands in the LMS and the SIS: per destination the last score sent and the state of the newest, next to the grade here",
    caller: 'member',
    roles: ROLES,
    params: submissionParams,
    response: gradeStandingSchema,
    errors: ['not_found'],
    handler: async ({ access, params: { submissionId } }) => presentStanding(await submissionGradeStanding(access.tenant, submissionId)),
  }),
  defineRoute({
    method: 'get',
    path: '/institutions/{id}/grade-standing/exams/{examId}',
    operationId: 'getExamGradeStanding',
    tag: 'Grades',
    summary: 'Where each grade of an exam stands in the LMS and the SIS (every submission but voided ones, oldest first, up to 500)',
    caller: 'member',
    roles: ROLES,
    params: examParams,
    response: z.object({ items: z.array(gradeStandingSchema) }),
    errors: ['not_found'],
    handler: async ({ access, params: { examId } }) => ({ items: (await examGradeStandings(access.tenant, examId)).map(presentStanding) }),
  }),
];
