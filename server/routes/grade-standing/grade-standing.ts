import { examGradeStandings, submissionGradeStanding } from '../../commands/lms/grade-standing.js';
import { defineRoute, type AnyPortalRoute } from '../../http/route.js';
import { presentGradeStanding } from '../../presenters/grade-standing.js';
import { z } from '../../validation/zod.js';
import { examParams, gradeStandingSchema, submissionParams } from './schema.js';

/**
 * Where a grade stands in each place it goes (docs/lms.md): the LMS through AGS and the SIS
 * through the OneRoster gradebook, the last score each took and the state of the newest one,
 * next to the grade here. Read from the appliance's own queues.
 */

const ROLES = ['admin', 'developer'] as const;

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
    handler: async ({ access, params: { submissionId } }) => presentGradeStanding(await submissionGradeStanding(access.tenant, submissionId)),
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
    handler: async ({ access, params: { examId } }) => ({ items: (await examGradeStandings(access.tenant, examId)).map(presentGradeStanding) }),
  }),
];
