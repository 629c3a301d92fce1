import type { AnyRoute } from '../http/route.js';
import { eventRoutes } from './events/events.js';
import { facultyRoutes } from './faculty/faculty.js';
import { groupsRoutes } from './groups/groups.js';
import { guardiansRoutes } from './guardians/guardians.js';
import { institutionRoutes } from './institution/institution.js';
import { licensesRoutes } from './licenses/licenses.js';
import { metaRoutes } from './meta/meta.js';
import { studentRoutes } from './students/students.js';

/** Every operation of the public API. The OpenAPI document is generated from this list. */
export const apiRoutes: AnyRoute[] = [
  ...metaRoutes,
  ...institutionRoutes,
  ...studentRoutes,
  ...facultyRoutes,
  ...groupsRoutes,
  ...licensesRoutes,
  ...guardiansRoutes,
  ...eventRoutes,
];
