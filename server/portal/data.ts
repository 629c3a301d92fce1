import { examRoutes } from './data/exams.js';
import { groupRoutes } from './data/groups.js';
import { licenseRoutes } from './data/licenses.js';
import { peopleRoutes } from './data/people.js';
import type { PortalRoute } from './route.js';

/**
 * The institution's data in the portal (issue 7, item 7): students, faculty, groups, licenses,
 * exams and submissions, for admins, on the same commands, schemas and presenters as /v1, so the
 * API and the portal read and write the same rows and emit the same events.
 */
export const institutionDataRoutes: PortalRoute[] = [...peopleRoutes, ...groupRoutes, ...licenseRoutes, ...examRoutes];
