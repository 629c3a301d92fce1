import { recordActivity } from '../../commands/alpha/activity.js';
import { getOwnAlpha } from '../../commands/alpha/learner.js';
import { defineRoute, type ApiRoute } from '../../http/route.js';
import { presentActivityResult, presentOwnAlpha } from '../../presenters/alpha.js';
import { activityBody, activityResultSchema, ownAlphaSchema } from '../alpha/schema-learner.js';

/** The learner side of Alpha Learning (`/app/alpha*`, learner session): what the learner page and the learning app call. */
export const alphaLearnerRoutes: ApiRoute[] = [
  defineRoute({
    caller: 'learner',
    method: 'get',
    path: '/app/alpha',
    operationId: 'getLearnerAlpha',
    summary: 'Learner: my Alpha Learning',
    description:
      "The signed-in student's enrollments (every status, oldest first) with each curriculum's concepts and their mastery, " +
      'the points total, the streak and the badges: the same numbers `GET /alpha/students/{id}`, `/mastery` and `/points` give the school. ' +
      "Only an `active` enrollment takes activity. Students only: a faculty member's session is `403 forbidden`.",
    tag: 'SSO',
    response: ownAlphaSchema,
    errors: ['forbidden'],
    handler: async ({ learner }) => presentOwnAlpha(await getOwnAlpha(learner)),
  }),
  defineRoute({
    caller: 'learner',
    method: 'post',
    path: '/app/alpha/activity',
    operationId: 'recordLearnerAlphaActivity',
    summary: 'Learner: record an Alpha Learning activity',
    description:
      "Updates the concept's mastery, awards activity points (ledger rows of source `activity`, each with its `alpha.points.awarded`), " +
      'the streak and badges, in one transaction. ' +
      'Checks, in order: the curriculum is one the institution can see (`404 not_found`), the concept belongs to it (`422 validation_error`), ' +
      "the student has an `active` enrollment in it (`409 conflict`). Students only: a faculty member's session is `403 forbidden`.",
    tag: 'SSO',
    body: activityBody,
    response: activityResultSchema,
    errors: ['forbidden', 'not_found', 'conflict'],
    handler: async ({ learner, body }) => presentActivityResult(await recordActivity(learner, body)),
  }),
];
