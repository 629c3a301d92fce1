import { recordActivity } from '../../commands/alpha/activity.js';
import { defineLearnerRoute, type ApiRoute } from '../../http/route.js';
import { presentActivityResult } from '../../presenters/alpha.js';
import { activityBody, activityResultSchema } from '../alpha/schema.js';

/** The learner side of Alpha Learning: what the learning app calls with a learner session. */
export const alphaLearnerRoutes: ApiRoute[] = [
  defineLearnerRoute({
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
