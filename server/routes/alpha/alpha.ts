import { listCurricula } from '../../commands/alpha/curricula.js';
import { createEnrollments, listEnrollments, updateEnrollment } from '../../commands/alpha/enrollments.js';
import { leaderboard } from '../../commands/alpha/leaderboard.js';
import { getStudentDrillDown, getStudentMastery } from '../../commands/alpha/mastery.js';
import { awardPoints, getStudentPoints } from '../../commands/alpha/points.js';
import { defineRoute, type ApiRoute } from '../../http/route.js';
import {
  presentAward,
  presentConceptMastery,
  presentCurriculum,
  presentEnrollment,
  presentLeaderboardEntry,
  presentPointsSummary,
  presentStudentDrillDown,
} from '../../presenters/alpha.js';
import { alphaStudentParams, awardBody, awardSchema, drillDownSchema, masteryList, masteryQuery, pointsQuery, pointsSummarySchema } from './schema-students.js';
import {
  createEnrollmentsBody,
  enrollmentPage,
  enrollmentParams,
  enrollmentSchema,
  enrollmentsCreatedSchema,
  listEnrollmentsQuery,
  updateEnrollmentBody,
} from './schema-enrollments.js';
import { curriculumPage, listCurriculaQuery } from './schema-curricula.js';
import { leaderboardQuery, leaderboardSchema } from './schema-leaderboard.js';

const TAG = 'Alpha Learning';

export const alphaRoutes: ApiRoute[] = [
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/alpha/curricula',
    operationId: 'listAlphaCurricula',
    summary: 'List curricula',
    description: "Published curricula: this institution's own and the shared ones, oldest first. Drafts are never listed.",
    tag: TAG,
    scope: 'alpha:read',
    query: listCurriculaQuery,
    response: curriculumPage,
    handler: async ({ tenant, query }) => {
      const page = await listCurricula(tenant, query);
      return { ...page, items: page.items.map(presentCurriculum) };
    },
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/alpha/enrollments',
    operationId: 'listAlphaEnrollments',
    summary: 'List enrollments',
    description: 'Oldest first.',
    tag: TAG,
    scope: 'alpha:read',
    query: listEnrollmentsQuery,
    response: enrollmentPage,
    handler: async ({ tenant, query }) => {
      const page = await listEnrollments(tenant, query);
      return { ...page, items: page.items.map(presentEnrollment) };
    },
  }),
  defineRoute({
    caller: 'key',
    method: 'post',
    path: '/alpha/enrollments',
    operationId: 'createAlphaEnrollments',
    summary: 'Enroll students in a curriculum',
    description:
      'Enrolls each valid student who is not enrolled in the curriculum yet (status `active`) and emits `alpha.enrollment.created` for each. ' +
      'Students already enrolled (in any status) are skipped and listed in `already_enrolled`; when all are, `items` is empty. ' +
      'Checks, in order: `curriculum_id` (`422 validation_error`), `guide_id` (`422 invalid_faculty`), `student_ids` (`422 no_valid_students`).',
    tag: TAG,
    scope: 'alpha:write',
    body: createEnrollmentsBody,
    response: enrollmentsCreatedSchema,
    errors: ['invalid_faculty', 'no_valid_students'],
    handler: async ({ tenant, body }) => {
      const result = await createEnrollments(tenant, body);
      return { items: result.created.map(presentEnrollment), rejected_student_ids: result.rejected, already_enrolled: result.alreadyEnrolled };
    },
  }),
  defineRoute({
    caller: 'key',
    method: 'patch',
    path: '/alpha/enrollments/{id}',
    operationId: 'updateAlphaEnrollment',
    summary: 'Update an enrollment',
    description:
      'Status transitions: `active` ↔ `paused`, `active` or `paused` → `completed`. A completed enrollment is final: any change is `409 conflict` ' +
      '(restating its values is a no-op). Checks: `404`, then `guide_id` (`422 invalid_faculty`), then the state (`409`).',
    tag: TAG,
    scope: 'alpha:write',
    params: enrollmentParams,
    body: updateEnrollmentBody,
    response: enrollmentSchema,
    errors: ['not_found', 'invalid_faculty', 'conflict'],
    handler: async ({ tenant, params, body }) => presentEnrollment(await updateEnrollment(tenant, params.id, body)),
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/alpha/students/{id}',
    operationId: 'getAlphaStudent',
    summary: "A student's Alpha Learning drill-down",
    description: 'The student, their enrollments, points total, current streak and a mastery summary.',
    tag: TAG,
    scope: 'alpha:read',
    params: alphaStudentParams,
    response: drillDownSchema,
    errors: ['not_found'],
    handler: async ({ tenant, params }) => presentStudentDrillDown(await getStudentDrillDown(tenant, params.id)),
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/alpha/students/{id}/mastery',
    operationId: 'getAlphaStudentMastery',
    summary: "A student's concept mastery",
    tag: TAG,
    scope: 'alpha:read',
    params: alphaStudentParams,
    query: masteryQuery,
    response: masteryList,
    errors: ['not_found'],
    handler: async ({ tenant, params, query }) => ({ items: (await getStudentMastery(tenant, params.id, query.curriculum_id)).map(presentConceptMastery) }),
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/alpha/students/{id}/points',
    operationId: 'getAlphaStudentPoints',
    summary: "A student's points, streak, badges and ledger",
    tag: TAG,
    scope: 'alpha:read',
    params: alphaStudentParams,
    query: pointsQuery,
    response: pointsSummarySchema,
    errors: ['not_found'],
    handler: async ({ tenant, params, query }) => presentPointsSummary(await getStudentPoints(tenant, params.id, query.limit)),
  }),
  defineRoute({
    caller: 'key',
    method: 'post',
    path: '/alpha/students/{id}/points',
    operationId: 'awardAlphaPoints',
    summary: 'Award bonus points',
    description:
      'Adds a ledger row of source `award` and emits `alpha.points.awarded` once. Idempotent on `ref`: the same ref with the same body answers the first ' +
      'award with `replayed: true`; with another body (or student): `409 conflict`. A negative award that would take the total below 0: `409 conflict` ' +
      '(nothing is written and the ref stays unused).',
    tag: TAG,
    scope: 'alpha:write',
    params: alphaStudentParams,
    body: awardBody,
    response: awardSchema,
    errors: ['not_found', 'conflict'],
    handler: async ({ tenant, params, body }) => {
      const { entry, replayed } = await awardPoints(tenant, params.id, body);
      return presentAward(entry, replayed);
    },
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/alpha/leaderboard',
    operationId: 'getAlphaLeaderboard',
    summary: 'Points leaderboard',
    description: 'Students with a positive total, highest first, with standard competition ranking (ties share a rank: 1, 2, 2, 4).',
    tag: TAG,
    scope: 'alpha:read',
    query: leaderboardQuery,
    response: leaderboardSchema,
    handler: async ({ tenant, query }) => ({ items: (await leaderboard(tenant, query.limit)).map(presentLeaderboardEntry) }),
  }),
];
