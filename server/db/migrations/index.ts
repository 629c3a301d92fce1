import type { Migration } from '../migrate.js';
import { foundation } from './20260914000000-foundation.js';
import { people } from './20260915000000-people.js';
import { exams } from './20260916000000-exams.js';
import { webhooks } from './20260917000000-webhooks.js';
import { couponsMerits } from './20260918000000-coupons-merits.js';
import { alpha } from './20260918100000-alpha.js';
import { portal } from './20260919000000-portal.js';
import { invitations } from './20260919100000-invitations.js';
import { portalAudit } from './20261121000000-portal-audit.js';
import { sealedMail } from './20261125000000-sealed-mail.js';
import { jobRuns } from './20261126010000-job-runs.js';
import { accountLife } from './20261126020000-accounts.js';
import { mailSubjects } from './20261126030000-mail-subjects.js';
import { listIndexes } from './20261127000000-list-indexes.js';
import { personCounts } from './20261128000000-person-counts.js';
import { groupMemberOrder } from './20261128010000-group-member-order.js';
import { sortIndexes } from './20261129000000-sort-indexes.js';
import { statsIndexes } from './20261129100000-stats-indexes.js';
import { aiUsage } from './20261130100000-ai-usage.js';
import { mailHtml } from './20261130200000-mail-html.js';
import { attemptRecordings } from './20261201100000-attempt-recordings.js';
import { senderLeases } from './20261202000000-sender-leases.js';
import { sandbox } from './20261203010000-sandbox.js';
import { keyLifecycle } from './20261203020000-key-lifecycle.js';
import { idempotencyKeys } from './20261203030000-idempotency-keys.js';
import { lti } from './20261204000000-lti.js';
import { oneroster } from './20261204010000-oneroster.js';
import { ltiRegistration } from './20261204020000-lti-registration.js';
import { ltiDynamicRegistration } from './20261204030000-lti-dynamic-registration.js';
import { onerosterHeartbeat } from './20261205000000-oneroster-heartbeat.js';
import { mailLinkBase } from './20261205010000-mail-link-base.js';
import { peopleSearch } from './20261206000000-people-search.js';
import { onerosterCsv } from './20261207000000-oneroster-csv.js';
import { ltiNrps } from './20261208000000-lti-nrps.js';
import { onerosterGradebook } from './20261208010000-oneroster-gradebook.js';
import { ltiFrameGrading } from './20261208020000-lti-frame-grading.js';
import { outboundPrivateHosts } from './20261209000000-outbound-private-hosts.js';

/** Every migration, oldest first. A new one is appended here; names are timestamped. */
export const migrations: Migration[] = [
  foundation,
  people,
  exams,
  webhooks,
  couponsMerits,
  alpha,
  portal,
  invitations,
  portalAudit,
  sealedMail,
  jobRuns,
  accountLife,
  mailSubjects,
  listIndexes,
  personCounts,
  groupMemberOrder,
  sortIndexes,
  statsIndexes,
  aiUsage,
  mailHtml,
  attemptRecordings,
  senderLeases,
  sandbox,
  keyLifecycle,
  idempotencyKeys,
  lti,
  oneroster,
  ltiRegistration,
  ltiDynamicRegistration,
  onerosterHeartbeat,
  mailLinkBase,
  peopleSearch,
  onerosterCsv,
  ltiNrps,
  onerosterGradebook,
  ltiFrameGrading,
  outboundPrivateHosts,
];
