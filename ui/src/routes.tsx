import type { ReactNode } from 'react';
import { AuditLogPage, OperatorAuditLogPage } from './pages/audit/AuditLogPage';
import { ExamDetailPage } from './pages/exams/ExamDetailPage';
import { ExamsPage } from './pages/exams/ExamsPage';
import { FacultyDetailPage } from './pages/faculty/FacultyDetailPage';
import { FacultyPage } from './pages/faculty/FacultyPage';
import { GroupDetailPage } from './pages/groups/GroupDetailPage';
import { GroupsPage } from './pages/groups/GroupsPage';
import { LicenseDetailPage } from './pages/licenses/LicenseDetailPage';
import { LicensesPage } from './pages/licenses/LicensesPage';
import { StudentDetailPage } from './pages/students/StudentDetailPage';
import { StudentsPage } from './pages/students/StudentsPage';
import { SubmissionDetailPage } from './pages/submissions/SubmissionDetailPage';
import { SubmissionsPage } from './pages/submissions/SubmissionsPage';
import { DevelopersPage } from './pages/developers/DevelopersPage';
import { KeysPage } from './pages/keys/KeysPage';
import { AccountsPage } from './pages/operator/AccountsPage';
import { AllowancesPage } from './pages/operator/AllowancesPage';
import { BackupsPage } from './pages/operator/BackupsPage';
import { JobsPage } from './pages/operator/JobsPage';
import { CouponBatchesPage } from './pages/operator/CouponBatchesPage';
import { CurriculaPage } from './pages/operator/CurriculaPage';
import { InstitutionsPage } from './pages/operator/InstitutionsPage';
import { MailServerPage } from './pages/operator/MailServerPage';
import { SettingsPage } from './pages/operator/SettingsPage';
import { ScopesPage } from './pages/scopes/ScopesPage';
import { InstitutionSettingsPage } from './pages/settings/InstitutionSettingsPage';
import { MailOutboxPage } from './pages/settings/MailOutboxPage';
import { OneRosterPage } from './pages/oneroster/OneRosterPage';
import { LtiPage } from './pages/lti/LtiPage';
import { DeliveriesPage } from './pages/webhooks/DeliveriesPage';
import { DeliveryDetailPage } from './pages/webhooks/DeliveryDetailPage';
import { EndpointDetailPage } from './pages/webhooks/EndpointDetailPage';
import { SignatureCheckPage } from './pages/webhooks/SignatureCheckPage';
import { WebhooksPage } from './pages/webhooks/WebhooksPage';
import type { MembershipRole } from './session';

/** Where a page sits in the navigation. */
export type Section = 'Developers' | 'Institution' | 'Settings';

export interface InstitutionPage {
  /** Relative to /i/:institutionId/ */
  path: string;
  label: string;
  section: Section;
  /** Who sees it; the server enforces the same rule on every operation the page calls. */
  roles: readonly MembershipRole[];
  element: ReactNode;
  /** Detail pages: routed, not listed in the navigation. */
  hidden?: boolean;
  /** The live institution's alone (keys, team, audit log): in the sandbox view it links to live. */
  liveOnly?: true;
}

export interface OperatorPage {
  /** Relative to /operator/ */
  path: string;
  label: string;
  element: ReactNode;
  hidden?: boolean;
}

const EVERY_MEMBER = ['admin', 'developer'] as const;
const ADMINS = ['admin'] as const;

export const SECTIONS: readonly Section[] = ['Developers', 'Institution', 'Settings'];

/** Every page of an institution, in navigation order within its section. */
export const institutionPages: InstitutionPage[] = [
  { path: 'keys', label: 'API keys', section: 'Developers', roles: EVERY_MEMBER, element: <KeysPage />, liveOnly: true },
  { path: 'scopes', label: 'Scopes', section: 'Developers', roles: EVERY_MEMBER, element: <ScopesPage /> },
  { path: 'webhooks', label: 'Webhooks', section: 'Developers', roles: EVERY_MEMBER, element: <WebhooksPage /> },
  { path: 'webhooks/deliveries', label: 'Deliveries', section: 'Developers', roles: EVERY_MEMBER, element: <DeliveriesPage /> },
  { path: 'webhooks/deliveries/:deliveryId', label: 'Delivery', section: 'Developers', roles: EVERY_MEMBER, element: <DeliveryDetailPage />, hidden: true },
  { path: 'webhooks/endpoints/:endpointId', label: 'Endpoint', section: 'Developers', roles: EVERY_MEMBER, element: <EndpointDetailPage />, hidden: true },
  { path: 'webhooks/signature-check', label: 'Signature checker', section: 'Developers', roles: EVERY_MEMBER, element: <SignatureCheckPage />, hidden: true },
  { path: 'students', label: 'Students', section: 'Institution', roles: ADMINS, element: <StudentsPage /> },
  { path: 'students/:studentId', label: 'Student', section: 'Institution', roles: ADMINS, element: <StudentDetailPage />, hidden: true },
  { path: 'faculty', label: 'Faculty', section: 'Institution', roles: ADMINS, element: <FacultyPage /> },
  { path: 'faculty/:facultyId', label: 'Faculty member', section: 'Institution', roles: ADMINS, element: <FacultyDetailPage />, hidden: true },
  { path: 'groups', label: 'Groups', section: 'Institution', roles: ADMINS, element: <GroupsPage /> },
  { path: 'groups/:groupId', label: 'Group', section: 'Institution', roles: ADMINS, element: <GroupDetailPage />, hidden: true },
  { path: 'licenses', label: 'Licenses', section: 'Institution', roles: ADMINS, element: <LicensesPage /> },
  { path: 'licenses/:licenseId', label: 'License', section: 'Institution', roles: ADMINS, element: <LicenseDetailPage />, hidden: true },
  { path: 'exams', label: 'Exams', section: 'Institution', roles: ADMINS, element: <ExamsPage /> },
  { path: 'exams/:examId', label: 'Exam', section: 'Institution', roles: ADMINS, element: <ExamDetailPage />, hidden: true },
  { path: 'submissions', label: 'Submissions', section: 'Institution', roles: ADMINS, element: <SubmissionsPage /> },
  { path: 'submissions/:submissionId', label: 'Submission', section: 'Institution', roles: ADMINS, element: <SubmissionDetailPage />, hidden: true },
  { path: 'settings', label: 'Institution settings', section: 'Settings', roles: ADMINS, element: <InstitutionSettingsPage /> },
  { path: 'oneroster', label: 'OneRoster', section: 'Settings', roles: ADMINS, element: <OneRosterPage />, liveOnly: true },
  { path: 'lti', label: 'LTI', section: 'Settings', roles: ADMINS, element: <LtiPage />, liveOnly: true },
  { path: 'developers', label: 'Team', section: 'Settings', roles: ADMINS, element: <DevelopersPage />, liveOnly: true },
  { path: 'outbox', label: 'Mail outbox', section: 'Settings', roles: ADMINS, element: <MailOutboxPage /> },
  { path: 'audit-log', label: 'Audit log', section: 'Settings', roles: ADMINS, element: <AuditLogPage />, liveOnly: true },
];

/** The appliance operator's pages. */
export const operatorPages: OperatorPage[] = [
  { path: 'institutions', label: 'Institutions', element: <InstitutionsPage /> },
  { path: 'coupon-batches', label: 'Coupon batches', element: <CouponBatchesPage /> },
  { path: 'allowances', label: 'Allowances', element: <AllowancesPage /> },
  { path: 'curricula', label: 'Curricula', element: <CurriculaPage /> },
  { path: 'settings', label: 'Settings', element: <SettingsPage /> },
  { path: 'mail-server', label: 'Mail server', element: <MailServerPage /> },
  { path: 'accounts', label: 'Accounts', element: <AccountsPage /> },
  { path: 'backups', label: 'Backups', element: <BackupsPage /> },
  { path: 'jobs', label: 'Jobs', element: <JobsPage /> },
  { path: 'audit-log', label: 'Audit log', element: <OperatorAuditLogPage /> },
];
