import type { ApiRoute } from '../http/route.js';
import { alphaRoutes } from './alpha/alpha.js';
import { alphaLearnerRoutes } from './learner/alpha.js';
import { gradingLearnerRoutes } from './learner/grading.js';
import { learnerRoutes } from './learner/learner.js';
import { deviceLearnerRoutes } from './learner/devices.js';
import { recordingLearnerRoutes } from './learner/recordings.js';
import { walletLearnerRoutes } from './learner/wallet.js';
import { couponRoutes } from './coupons/coupons.js';
import { eventRoutes } from './events/events.js';
import { codingExamRoutes } from './exams/coding.js';
import { examRoutes } from './exams/exams.js';
import { facultyRoutes } from './faculty/faculty.js';
import { fileRoutes } from './files/files.js';
import { groupsRoutes } from './groups/groups.js';
import { guardiansRoutes } from './guardians/guardians.js';
import { institutionRoutes } from './institution/institution.js';
import { licensesRoutes } from './licenses/licenses.js';
import { meritRoutes } from './merits/merits.js';
import { metaRoutes } from './meta/meta.js';
import { ssoRoutes } from './sso/sso.js';
import { studentRoutes } from './students/students.js';
import { submissionRoutes } from './submissions/submissions.js';
import { webhookDebuggingRoutes } from './webhooks/debugging.js';
import { webhookDeliveryRoutes } from './webhooks/deliveries.js';
import { webhookEndpointRoutes } from './webhooks/endpoints.js';

/** Every operation under /v1: integration (API key), learner (/app/*, session) and public ones. The OpenAPI document is generated from this list. */
export const apiRoutes: ApiRoute[] = [
  ...metaRoutes,
  ...institutionRoutes,
  ...studentRoutes,
  ...facultyRoutes,
  ...groupsRoutes,
  ...licensesRoutes,
  ...guardiansRoutes,
  ...examRoutes,
  ...codingExamRoutes,
  ...submissionRoutes,
  ...ssoRoutes,
  ...couponRoutes,
  ...meritRoutes,
  ...alphaRoutes,
  ...webhookEndpointRoutes,
  ...webhookDeliveryRoutes,
  ...webhookDebuggingRoutes,
  ...eventRoutes,
  ...learnerRoutes,
  ...gradingLearnerRoutes,
  ...alphaLearnerRoutes,
  ...walletLearnerRoutes,
  ...deviceLearnerRoutes,
  ...recordingLearnerRoutes,
  ...fileRoutes,
];
