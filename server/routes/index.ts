import type { AnyPortalRoute, AnyRoute, ApiRoute } from '../http/route.js';
import { memberOperations, type RouteMount } from '../http/mount.js';
import type { LoginThrottle } from '../portal/login-throttle.js';
import { institutionOperations, lazyOpenApiDocument } from '../http/openapi.js';
import { openApiDocumentRoute } from './meta/documents.js';
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
import { webhookDeliveryRoutes } from './webhooks/deliveries.js';
import { webhookEndpointRoutes } from './webhooks/endpoints.js';
import { accountRoutes } from './account/account.js';
import { auditRoutes } from './audit/audit.js';
import { backupRoutes } from './operator/backups.js';
import { operatorJobRoutes } from './operator/jobs.js';
import { developerRoutes } from './developers/developers.js';
import { keyRoutes } from './keys/keys.js';
import { ltiPortalRoutes } from './lti/portal.js';
import { nameRoutes } from './names/names.js';
import { operatorRoutes } from './operator/operator.js';
import { outboxRoutes } from './outbox/outbox.js';
import { onerosterRoutes } from './oneroster/oneroster.js';
import { gradebookRoutes } from './oneroster/gradebook.js';
import { gradeStandingRoutes } from './grade-standing/grade-standing.js';
import { passwordRoutes } from './account/password.js';
import { institutionAdminRoutes } from './operator/institution-admins.js';
import { operatorAccountRoutes } from './operator/accounts.js';
import { settingsRoutes } from './operator/settings.js';
import { sandboxRoutes } from './sandbox/sandbox.js';
import { statsRoutes } from './stats/stats.js';
import { webhookDebuggingPortalRoutes, webhookDebuggingRoutes } from './webhooks/debugging.js';
import { guardianAcceptRoutes } from './guardians/accept.js';
import { healthRoutes } from './health/health.js';
import { launchPageRoutes } from './learner/launch-page.js';
import { ltiPageRoutes } from './lti/pages.js';

/** Every operation under /v1: integration (API key), learner (/app/*, session) and public ones. The OpenAPI document is generated from this list. */
export const apiRoutes: ApiRoute[] = [
  openApiDocumentRoute(() => apiDocument(), 'api'),
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

/** The /v1 document, built at its first use: served at /v1/openapi.json and by the reference page at /v1/docs. */
export const apiDocument = lazyOpenApiDocument(apiRoutes);

/** Every operation only the portal has, each declared in server/routes/<area>/. */
export function portalRoutes(throttle: LoginThrottle): AnyPortalRoute[] {
  const own: AnyPortalRoute[] = [
    // The portal's document: its own operations, this one included, and the institution operations it re-mounts.
    openApiDocumentRoute(() => document(), 'portal'),
    ...accountRoutes(throttle),
    ...keyRoutes,
    ...sandboxRoutes,
    ...nameRoutes,
    ...statsRoutes,
    ...webhookDebuggingPortalRoutes,
    ...developerRoutes(throttle),
    ...auditRoutes,
    ...operatorRoutes,
    ...outboxRoutes,
    ...onerosterRoutes,
    ...gradebookRoutes,
    ...gradeStandingRoutes,
    ...ltiPortalRoutes,
    ...passwordRoutes(throttle),
    ...institutionAdminRoutes,
    ...operatorAccountRoutes,
    ...settingsRoutes,
    ...backupRoutes,
    ...operatorJobRoutes,
  ];
  const document = lazyOpenApiDocument([...own, ...institutionOperations(apiRoutes)], 'portal');
  return own;
}

/** At the root, without credentials: the health check, and the pages a browser or an LMS opens (LTI, guardian links, the learner page). */
export const pageRoutes: AnyRoute[] = [...healthRoutes, ...ltiPageRoutes, ...guardianAcceptRoutes, ...launchPageRoutes];

/** A worker process serves the health check and nothing else (docs/decisions/process-roles.md). */
export const workerRoutes: AnyRoute[] = healthRoutes;

/**
 * The one registry: every declared route, by where it is mounted (server/http/mount.ts). The
 * portal also serves each institution operation of /v1 under /institutions/{institution}.
 */
export function routeRegistry(throttle: LoginThrottle): Record<RouteMount, readonly AnyRoute[]> {
  // The institution operations as declared: mountRoutes puts them under /institutions/{institution}.
  return { '/v1': apiRoutes, '/portal/api': [...portalRoutes(throttle), ...memberOperations(apiRoutes)], '/': pageRoutes };
}
