import type { ModelStatic, Transaction } from 'sequelize';
import type { AlphaActivityRow, AlphaBadgeRow, AlphaEnrollmentRow, AlphaMasteryRow, AlphaPointsRow } from '../models/alpha.js';
import type { ApiKeyRow } from '../models/api-key.js';
import type { AttemptRow, ProctoringEventRow } from '../models/attempt.js';
import type { CouponBatchRow, CouponCodeRow, CouponRedemptionRow } from '../models/coupon.js';
import type { DeviceSeatRow } from '../models/device-seat.js';
import type { EventRow } from '../models/event.js';
import type { ExamAssignmentRow, ExamRow, ExamSecretRow } from '../models/exam.js';
import type { GroupMemberRow, GroupRow } from '../models/group.js';
import type { GuardianLinkRow, GuardianReportRow } from '../models/guardian.js';
import type { InvitationRow } from '../models/invitation.js';
import type { MembershipRow } from '../models/membership.js';
import type { PortalAuditEntryRow } from '../models/portal-audit.js';
import type { LaunchTokenRow, LearnerSessionRow } from '../models/learner.js';
import type { LicenseRow } from '../models/license.js';
import type { LtiLoginStateRow, LtiResourceLinkRow, LtiSubjectRow } from '../models/lti-launch.js';
import type { LtiNrpsRunRow } from '../models/lti-nrps.js';
import type { LtiPlatformRow } from '../models/lti.js';
import type { LtiScoreAttemptRow, LtiScorePostRow } from '../models/lti-score.js';
import type { MailOutboxRow } from '../models/mail.js';
import type { MeritAllowanceRow, MeritLedgerRow, MeritWalletRow } from '../models/merit.js';
import type { PersonCountRow, PersonRow, PersonSearchRowRow } from '../models/person.js';
import type { OneRosterConnectionRow, OneRosterLinkRow, OneRosterRunRow } from '../models/oneroster.js';
import type { OneRosterGradebookAttemptRow, OneRosterGradebookPostRow, OneRosterLineItemRow } from '../models/oneroster-gradebook.js';
import type { AttemptRecordingRow, RecordingChunkRow } from '../models/recording.js';
import type { StoredFileRow } from '../models/stored-file.js';
import type { SubmissionRow } from '../models/submission.js';
import type { WebhookAttemptRow, WebhookDeliveryRow, WebhookEndpointRow } from '../models/webhook.js';
import type { Models } from '../models/index.js';
import { ScopedRepo, type TenantOwned } from './scoped-repo.js';
import { VisibleCurricula } from './visible-curricula.js';

/**
 * An institution's repositories, one per table it owns. Each is built on first use and kept on
 * the instance, so a Tenant costs only the repositories its work reads.
 */
export abstract class TenantRepos {
  readonly #models: Models;
  readonly #repos = new Map<string, unknown>();

  constructor(
    models: Models,
    readonly institutionId: string,
    readonly tx: Transaction | null,
  ) {
    this.#models = models;
  }

  private lazy<R>(name: string, make: () => R): R {
    let repo = this.#repos.get(name) as R | undefined;
    if (repo === undefined) {
      repo = make();
      this.#repos.set(name, repo);
    }
    return repo;
  }

  private scoped<M extends TenantOwned>(name: string, model: ModelStatic<M>): ScopedRepo<M> {
    return this.lazy(name, () => new ScopedRepo(model, this.institutionId, this.tx));
  }

  get apiKeys(): ScopedRepo<ApiKeyRow> {
    return this.scoped('apiKeys', this.#models.ApiKey);
  }
  get events(): ScopedRepo<EventRow> {
    return this.scoped('events', this.#models.Event);
  }
  /** Students and faculty; filter on `role`. */
  get people(): ScopedRepo<PersonRow> {
    return this.scoped('people', this.#models.Person);
  }
  /** Kept by the database's triggers: read, never written. */
  get personCounts(): ScopedRepo<PersonCountRow> {
    return this.scoped('personCounts', this.#models.PersonCount);
  }
  /** SQLite only: the search index's rows (migration 20261206000000-people-search). */
  get peopleSearchRows(): ScopedRepo<PersonSearchRowRow> {
    return this.scoped('peopleSearchRows', this.#models.PersonSearchRow);
  }
  get licenses(): ScopedRepo<LicenseRow> {
    return this.scoped('licenses', this.#models.License);
  }
  get deviceSeats(): ScopedRepo<DeviceSeatRow> {
    return this.scoped('deviceSeats', this.#models.DeviceSeat);
  }
  get groups(): ScopedRepo<GroupRow> {
    return this.scoped('groups', this.#models.Group);
  }
  get groupMembers(): ScopedRepo<GroupMemberRow> {
    return this.scoped('groupMembers', this.#models.GroupMember);
  }
  get guardianLinks(): ScopedRepo<GuardianLinkRow> {
    return this.scoped('guardianLinks', this.#models.GuardianLink);
  }
  get guardianReports(): ScopedRepo<GuardianReportRow> {
    return this.scoped('guardianReports', this.#models.GuardianReport);
  }
  get mailOutbox(): ScopedRepo<MailOutboxRow & { institution_id: string }> {
    return this.scoped('mailOutbox', this.#models.MailOutbox as never);
  }
  get auditLog(): ScopedRepo<PortalAuditEntryRow & { institution_id: string }> {
    return this.scoped('auditLog', this.#models.PortalAuditEntry as never);
  }
  get exams(): ScopedRepo<ExamRow> {
    return this.scoped('exams', this.#models.Exam);
  }
  get examAssignments(): ScopedRepo<ExamAssignmentRow> {
    return this.scoped('examAssignments', this.#models.ExamAssignment);
  }
  get examSecrets(): ScopedRepo<ExamSecretRow> {
    return this.scoped('examSecrets', this.#models.ExamSecret);
  }
  get files(): ScopedRepo<StoredFileRow> {
    return this.scoped('files', this.#models.StoredFile);
  }
  get launchTokens(): ScopedRepo<LaunchTokenRow> {
    return this.scoped('launchTokens', this.#models.LaunchToken);
  }
  get learnerSessions(): ScopedRepo<LearnerSessionRow> {
    return this.scoped('learnerSessions', this.#models.LearnerSession);
  }
  get attempts(): ScopedRepo<AttemptRow> {
    return this.scoped('attempts', this.#models.Attempt);
  }
  get proctoringEvents(): ScopedRepo<ProctoringEventRow> {
    return this.scoped('proctoringEvents', this.#models.ProctoringEvent);
  }
  get recordings(): ScopedRepo<AttemptRecordingRow> {
    return this.scoped('recordings', this.#models.AttemptRecording);
  }
  get recordingChunks(): ScopedRepo<RecordingChunkRow> {
    return this.scoped('recordingChunks', this.#models.RecordingChunk);
  }
  get submissions(): ScopedRepo<SubmissionRow> {
    return this.scoped('submissions', this.#models.Submission);
  }
  get webhookEndpoints(): ScopedRepo<WebhookEndpointRow> {
    return this.scoped('webhookEndpoints', this.#models.WebhookEndpoint);
  }
  get webhookDeliveries(): ScopedRepo<WebhookDeliveryRow> {
    return this.scoped('webhookDeliveries', this.#models.WebhookDelivery);
  }
  get webhookAttempts(): ScopedRepo<WebhookAttemptRow> {
    return this.scoped('webhookAttempts', this.#models.WebhookAttempt);
  }
  // LTI 1.3: registered platforms, resource links to exams, LMS subjects, login states and AGS score posts.
  get ltiPlatforms(): ScopedRepo<LtiPlatformRow> {
    return this.scoped('ltiPlatforms', this.#models.LtiPlatform);
  }
  get ltiResourceLinks(): ScopedRepo<LtiResourceLinkRow> {
    return this.scoped('ltiResourceLinks', this.#models.LtiResourceLink);
  }
  get ltiSubjects(): ScopedRepo<LtiSubjectRow> {
    return this.scoped('ltiSubjects', this.#models.LtiSubject);
  }
  get ltiLoginStates(): ScopedRepo<LtiLoginStateRow> {
    return this.scoped('ltiLoginStates', this.#models.LtiLoginState);
  }
  get ltiScorePosts(): ScopedRepo<LtiScorePostRow> {
    return this.scoped('ltiScorePosts', this.#models.LtiScorePost);
  }
  get ltiScoreAttempts(): ScopedRepo<LtiScoreAttemptRow> {
    return this.scoped('ltiScoreAttempts', this.#models.LtiScoreAttempt);
  }
  /** Class list (NRPS) syncs of resource links. */
  get ltiNrpsRuns(): ScopedRepo<LtiNrpsRunRow> {
    return this.scoped('ltiNrpsRuns', this.#models.LtiNrpsRun);
  }
  get couponBatches(): ScopedRepo<CouponBatchRow> {
    return this.scoped('couponBatches', this.#models.CouponBatch);
  }
  get couponCodes(): ScopedRepo<CouponCodeRow> {
    return this.scoped('couponCodes', this.#models.CouponCode);
  }
  get couponRedemptions(): ScopedRepo<CouponRedemptionRow> {
    return this.scoped('couponRedemptions', this.#models.CouponRedemption);
  }
  /** At most one row: the institution's merit allowance (absent = nothing granted yet). */
  get meritAllowances(): ScopedRepo<MeritAllowanceRow> {
    return this.scoped('meritAllowances', this.#models.MeritAllowance);
  }
  get meritWallets(): ScopedRepo<MeritWalletRow> {
    return this.scoped('meritWallets', this.#models.MeritWallet);
  }
  get meritLedger(): ScopedRepo<MeritLedgerRow> {
    return this.scoped('meritLedger', this.#models.MeritLedgerEntry);
  }
  /** Portal team: memberships of portal accounts in this institution, and open invitations. */
  get memberships(): ScopedRepo<MembershipRow> {
    return this.scoped('memberships', this.#models.Membership);
  }
  get invitations(): ScopedRepo<InvitationRow> {
    return this.scoped('invitations', this.#models.Invitation);
  }
  // Alpha Learning. Curricula are own-or-shared, not ScopedRepo: see VisibleCurricula.
  get alphaCurricula(): VisibleCurricula {
    return this.lazy('alphaCurricula', () => new VisibleCurricula(this.#models.AlphaCurriculum, this.institutionId, this.tx));
  }
  get alphaEnrollments(): ScopedRepo<AlphaEnrollmentRow> {
    return this.scoped('alphaEnrollments', this.#models.AlphaEnrollment);
  }
  get alphaMastery(): ScopedRepo<AlphaMasteryRow> {
    return this.scoped('alphaMastery', this.#models.AlphaMastery);
  }
  get alphaActivities(): ScopedRepo<AlphaActivityRow> {
    return this.scoped('alphaActivities', this.#models.AlphaActivity);
  }
  get alphaPoints(): ScopedRepo<AlphaPointsRow> {
    return this.scoped('alphaPoints', this.#models.AlphaPoints);
  }
  get alphaBadges(): ScopedRepo<AlphaBadgeRow> {
    return this.scoped('alphaBadges', this.#models.AlphaBadge);
  }
  // OneRoster roster sync: the SIS connection, its sourcedId links and its runs.
  get onerosterConnections(): ScopedRepo<OneRosterConnectionRow> {
    return this.scoped('onerosterConnections', this.#models.OneRosterConnection);
  }
  get onerosterLinks(): ScopedRepo<OneRosterLinkRow> {
    return this.scoped('onerosterLinks', this.#models.OneRosterLink);
  }
  get onerosterRuns(): ScopedRepo<OneRosterRunRow> {
    return this.scoped('onerosterRuns', this.#models.OneRosterRun);
  }
  // OneRoster gradebook write-back: line items per exam and class, result posts and their attempts.
  get onerosterLineItems(): ScopedRepo<OneRosterLineItemRow> {
    return this.scoped('onerosterLineItems', this.#models.OneRosterLineItem);
  }
  get onerosterGradebookPosts(): ScopedRepo<OneRosterGradebookPostRow> {
    return this.scoped('onerosterGradebookPosts', this.#models.OneRosterGradebookPost);
  }
  get onerosterGradebookAttempts(): ScopedRepo<OneRosterGradebookAttemptRow> {
    return this.scoped('onerosterGradebookAttempts', this.#models.OneRosterGradebookAttempt);
  }
}
