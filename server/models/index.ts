import type { Sequelize } from 'sequelize';
import {
  defineAlphaActivity,
  defineAlphaBadge,
  defineAlphaConcept,
  defineAlphaCurriculum,
  defineAlphaEnrollment,
  defineAlphaMastery,
  defineAlphaPoints,
} from './alpha.js';
import { defineApiKey } from './api-key.js';
import { defineAttempt, defineProctoringEvent } from './attempt.js';
import { defineCouponBatch, defineCouponCode, defineCouponRedemption } from './coupon.js';
import { defineDeviceSeat } from './device-seat.js';
import { defineEvent } from './event.js';
import { defineExam, defineExamAssignment, defineExamSecret } from './exam.js';
import { defineGroup, defineGroupMember } from './group.js';
import { defineGuardianLink, defineGuardianReport } from './guardian.js';
import { defineInstitution } from './institution.js';
import { defineIdempotencyKey } from './idempotency-key.js';
import { defineInvitation } from './invitation.js';
import { defineJobRun } from './job-run.js';
import { defineLaunchToken, defineLearnerSession } from './learner.js';
import { defineLicense } from './license.js';
import { defineLtiLoginState, defineLtiResourceLink, defineLtiSubject } from './lti-launch.js';
import { defineLtiNrpsRun } from './lti-nrps.js';
import { defineLtiPlatform, defineLtiRegistration, defineLtiToolKey } from './lti.js';
import { defineLtiScoreAttempt, defineLtiScorePost } from './lti-score.js';
import { defineAppSetting, defineMailOutbox } from './mail.js';
import { defineMembership } from './membership.js';
import { defineMeritAllowance, defineMeritLedgerEntry, defineMeritWallet } from './merit.js';
import { definePerson, definePersonCount, definePersonSearchRow } from './person.js';
import { defineOneRosterConnection, defineOneRosterLink, defineOneRosterRun } from './oneroster.js';
import { defineOneRosterGradebookAttempt, defineOneRosterGradebookPost, defineOneRosterLineItem } from './oneroster-gradebook.js';
import { definePortalAccount } from './portal-account.js';
import { definePortalAuditEntry } from './portal-audit.js';
import { definePortalSession } from './portal-session.js';
import { definePasswordReset } from './password-reset.js';
import { defineAttemptRecording, defineRecordingChunk } from './recording.js';
import { defineStoredFile } from './stored-file.js';
import { defineSubmission } from './submission.js';
import { defineSenderLease, defineWebhookAttempt, defineWebhookDelivery, defineWebhookEndpoint } from './webhook.js';

export type Models = ReturnType<typeof defineModels>;

/** Models are defined per Sequelize instance, so several appliances can share one process (tests). */
export function defineModels(sequelize: Sequelize) {
  const models = {
    Institution: defineInstitution(sequelize),
    PortalAccount: definePortalAccount(sequelize),
    Membership: defineMembership(sequelize),
    PortalSession: definePortalSession(sequelize),
    PasswordReset: definePasswordReset(sequelize),
    Invitation: defineInvitation(sequelize),
    PortalAuditEntry: definePortalAuditEntry(sequelize),
    JobRun: defineJobRun(sequelize),
    ApiKey: defineApiKey(sequelize),
    IdempotencyKey: defineIdempotencyKey(sequelize),
    Event: defineEvent(sequelize),
    Person: definePerson(sequelize),
    PersonCount: definePersonCount(sequelize),
    PersonSearchRow: definePersonSearchRow(sequelize),
    License: defineLicense(sequelize),
    DeviceSeat: defineDeviceSeat(sequelize),
    Group: defineGroup(sequelize),
    GroupMember: defineGroupMember(sequelize),
    GuardianLink: defineGuardianLink(sequelize),
    GuardianReport: defineGuardianReport(sequelize),
    MailOutbox: defineMailOutbox(sequelize),
    AppSetting: defineAppSetting(sequelize),
    Exam: defineExam(sequelize),
    ExamAssignment: defineExamAssignment(sequelize),
    ExamSecret: defineExamSecret(sequelize),
    StoredFile: defineStoredFile(sequelize),
    LaunchToken: defineLaunchToken(sequelize),
    LearnerSession: defineLearnerSession(sequelize),
    Attempt: defineAttempt(sequelize),
    ProctoringEvent: defineProctoringEvent(sequelize),
    AttemptRecording: defineAttemptRecording(sequelize),
    RecordingChunk: defineRecordingChunk(sequelize),
    Submission: defineSubmission(sequelize),
    WebhookEndpoint: defineWebhookEndpoint(sequelize),
    WebhookDelivery: defineWebhookDelivery(sequelize),
    SenderLease: defineSenderLease(sequelize),
    WebhookAttempt: defineWebhookAttempt(sequelize),
    LtiPlatform: defineLtiPlatform(sequelize),
    LtiToolKey: defineLtiToolKey(sequelize),
    LtiResourceLink: defineLtiResourceLink(sequelize),
    LtiSubject: defineLtiSubject(sequelize),
    LtiLoginState: defineLtiLoginState(sequelize),
    LtiRegistration: defineLtiRegistration(sequelize),
    LtiScorePost: defineLtiScorePost(sequelize),
    LtiScoreAttempt: defineLtiScoreAttempt(sequelize),
    LtiNrpsRun: defineLtiNrpsRun(sequelize),
    CouponBatch: defineCouponBatch(sequelize),
    CouponCode: defineCouponCode(sequelize),
    CouponRedemption: defineCouponRedemption(sequelize),
    MeritAllowance: defineMeritAllowance(sequelize),
    MeritWallet: defineMeritWallet(sequelize),
    MeritLedgerEntry: defineMeritLedgerEntry(sequelize),
    AlphaCurriculum: defineAlphaCurriculum(sequelize),
    AlphaConcept: defineAlphaConcept(sequelize),
    AlphaEnrollment: defineAlphaEnrollment(sequelize),
    AlphaMastery: defineAlphaMastery(sequelize),
    AlphaActivity: defineAlphaActivity(sequelize),
    AlphaPoints: defineAlphaPoints(sequelize),
    AlphaBadge: defineAlphaBadge(sequelize),
    OneRosterConnection: defineOneRosterConnection(sequelize),
    OneRosterLink: defineOneRosterLink(sequelize),
    OneRosterRun: defineOneRosterRun(sequelize),
    OneRosterLineItem: defineOneRosterLineItem(sequelize),
    OneRosterGradebookPost: defineOneRosterGradebookPost(sequelize),
    OneRosterGradebookAttempt: defineOneRosterGradebookAttempt(sequelize),
  };

  models.Membership.belongsTo(models.PortalAccount, { foreignKey: 'account_id', as: 'account' });
  models.PortalSession.belongsTo(models.PortalAccount, { foreignKey: 'account_id', as: 'account' });
  models.Membership.belongsTo(models.Institution, { foreignKey: 'institution_id', as: 'institution' });
  models.ApiKey.belongsTo(models.Institution, { foreignKey: 'institution_id', as: 'institution' });
  models.License.belongsTo(models.Person, { foreignKey: 'user_id', as: 'user' });
  models.Person.hasMany(models.License, { foreignKey: 'user_id', as: 'licenses' });
  models.DeviceSeat.belongsTo(models.License, { foreignKey: 'license_id', as: 'license' });
  models.Group.belongsTo(models.Person, { foreignKey: 'faculty_id', as: 'owner' });
  models.Group.hasMany(models.GroupMember, { foreignKey: 'group_id', as: 'memberships' });
  models.GroupMember.belongsTo(models.Person, { foreignKey: 'student_id', as: 'student' });
  models.Person.hasMany(models.GroupMember, { foreignKey: 'student_id', as: 'memberships' });
  models.GuardianLink.belongsTo(models.Person, { foreignKey: 'student_id', as: 'student' });
  models.Exam.belongsTo(models.Person, { foreignKey: 'faculty_id', as: 'owner' });
  models.Exam.hasMany(models.ExamAssignment, { foreignKey: 'exam_id', as: 'assignments' });
  models.ExamAssignment.belongsTo(models.Group, { foreignKey: 'group_id', as: 'group' });
  models.Attempt.belongsTo(models.Exam, { foreignKey: 'exam_id', as: 'exam' });
  models.Attempt.belongsTo(models.Person, { foreignKey: 'student_id', as: 'student' });
  models.Submission.belongsTo(models.Exam, { foreignKey: 'exam_id', as: 'exam' });
  models.Submission.belongsTo(models.Person, { foreignKey: 'student_id', as: 'student' });
  models.Submission.belongsTo(models.Attempt, { foreignKey: 'attempt_id', as: 'attempt' });
  models.WebhookDelivery.belongsTo(models.WebhookEndpoint, { foreignKey: 'endpoint_id', as: 'endpoint' });

  return models;
}
