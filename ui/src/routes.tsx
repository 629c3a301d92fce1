import { lazy, type ComponentType, type ReactNode } from 'react';
import type { MembershipRole } from './session';

/**
 * A page loaded when it is first opened: each page is its own chunk, so the portal's first load
 * (sign-in, the wizard) carries none of them. The layout shows a loader meanwhile (Suspense).
 */
function page<M>(load: () => Promise<M>, name: keyof M): ReactNode {
  const Page = lazy(() => load().then((module) => ({ default: module[name] as ComponentType })));
  return <Page />;
}

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
  {
    path: 'keys',
    label: 'API keys',
    section: 'Developers',
    roles: EVERY_MEMBER,
    element: page(() => import('./pages/keys/KeysPage'), 'KeysPage'),
    liveOnly: true,
  },
  { path: 'scopes', label: 'Scopes', section: 'Developers', roles: EVERY_MEMBER, element: page(() => import('./pages/scopes/ScopesPage'), 'ScopesPage') },
  {
    path: 'webhooks',
    label: 'Webhooks',
    section: 'Developers',
    roles: EVERY_MEMBER,
    element: page(() => import('./pages/webhooks/WebhooksPage'), 'WebhooksPage'),
  },
  {
    path: 'webhooks/deliveries',
    label: 'Deliveries',
    section: 'Developers',
    roles: EVERY_MEMBER,
    element: page(() => import('./pages/webhooks/DeliveriesPage'), 'DeliveriesPage'),
  },
  {
    path: 'webhooks/deliveries/:deliveryId',
    label: 'Delivery',
    section: 'Developers',
    roles: EVERY_MEMBER,
    element: page(() => import('./pages/webhooks/DeliveryDetailPage'), 'DeliveryDetailPage'),
    hidden: true,
  },
  {
    path: 'webhooks/endpoints/:endpointId',
    label: 'Endpoint',
    section: 'Developers',
    roles: EVERY_MEMBER,
    element: page(() => import('./pages/webhooks/EndpointDetailPage'), 'EndpointDetailPage'),
    hidden: true,
  },
  {
    path: 'webhooks/signature-check',
    label: 'Signature checker',
    section: 'Developers',
    roles: EVERY_MEMBER,
    element: page(() => import('./pages/webhooks/SignatureCheckPage'), 'SignatureCheckPage'),
    hidden: true,
  },
  { path: 'students', label: 'Students', section: 'Institution', roles: ADMINS, element: page(() => import('./pages/students/StudentsPage'), 'StudentsPage') },
  {
    path: 'students/:studentId',
    label: 'Student',
    section: 'Institution',
    roles: ADMINS,
    element: page(() => import('./pages/students/StudentDetailPage'), 'StudentDetailPage'),
    hidden: true,
  },
  { path: 'faculty', label: 'Faculty', section: 'Institution', roles: ADMINS, element: page(() => import('./pages/faculty/FacultyPage'), 'FacultyPage') },
  {
    path: 'faculty/:facultyId',
    label: 'Faculty member',
    section: 'Institution',
    roles: ADMINS,
    element: page(() => import('./pages/faculty/FacultyDetailPage'), 'FacultyDetailPage'),
    hidden: true,
  },
  { path: 'groups', label: 'Groups', section: 'Institution', roles: ADMINS, element: page(() => import('./pages/groups/GroupsPage'), 'GroupsPage') },
  {
    path: 'groups/:groupId',
    label: 'Group',
    section: 'Institution',
    roles: ADMINS,
    element: page(() => import('./pages/groups/GroupDetailPage'), 'GroupDetailPage'),
    hidden: true,
  },
  { path: 'licenses', label: 'Licenses', section: 'Institution', roles: ADMINS, element: page(() => import('./pages/licenses/LicensesPage'), 'LicensesPage') },
  {
    path: 'licenses/:licenseId',
    label: 'License',
    section: 'Institution',
    roles: ADMINS,
    element: page(() => import('./pages/licenses/LicenseDetailPage'), 'LicenseDetailPage'),
    hidden: true,
  },
  { path: 'exams', label: 'Exams', section: 'Institution', roles: ADMINS, element: page(() => import('./pages/exams/ExamsPage'), 'ExamsPage') },
  {
    path: 'exams/:examId',
    label: 'Exam',
    section: 'Institution',
    roles: ADMINS,
    element: page(() => import('./pages/exams/ExamDetailPage'), 'ExamDetailPage'),
    hidden: true,
  },
  {
    path: 'submissions',
    label: 'Submissions',
    section: 'Institution',
    roles: ADMINS,
    element: page(() => import('./pages/submissions/SubmissionsPage'), 'SubmissionsPage'),
  },
  {
    path: 'submissions/:submissionId',
    label: 'Submission',
    section: 'Institution',
    roles: ADMINS,
    element: page(() => import('./pages/submissions/SubmissionDetailPage'), 'SubmissionDetailPage'),
    hidden: true,
  },
  {
    path: 'settings',
    label: 'Institution settings',
    section: 'Settings',
    roles: ADMINS,
    element: page(() => import('./pages/settings/InstitutionSettingsPage'), 'InstitutionSettingsPage'),
  },
  {
    path: 'oneroster',
    label: 'OneRoster',
    section: 'Settings',
    roles: ADMINS,
    element: page(() => import('./pages/oneroster/OneRosterPage'), 'OneRosterPage'),
    liveOnly: true,
  },
  { path: 'lti', label: 'LTI', section: 'Settings', roles: ADMINS, element: page(() => import('./pages/lti/LtiPage'), 'LtiPage'), liveOnly: true },
  {
    path: 'developers',
    label: 'Team',
    section: 'Settings',
    roles: ADMINS,
    element: page(() => import('./pages/developers/DevelopersPage'), 'DevelopersPage'),
    liveOnly: true,
  },
  {
    path: 'outbox',
    label: 'Mail outbox',
    section: 'Settings',
    roles: ADMINS,
    element: page(() => import('./pages/settings/MailOutboxPage'), 'MailOutboxPage'),
  },
  {
    path: 'audit-log',
    label: 'Audit log',
    section: 'Settings',
    roles: ADMINS,
    element: page(() => import('./pages/audit/AuditLogPage'), 'AuditLogPage'),
    liveOnly: true,
  },
];

/** The appliance operator's pages. */
export const operatorPages: OperatorPage[] = [
  { path: 'institutions', label: 'Institutions', element: page(() => import('./pages/operator/InstitutionsPage'), 'InstitutionsPage') },
  { path: 'coupon-batches', label: 'Coupon batches', element: page(() => import('./pages/operator/CouponBatchesPage'), 'CouponBatchesPage') },
  { path: 'allowances', label: 'Allowances', element: page(() => import('./pages/operator/AllowancesPage'), 'AllowancesPage') },
  { path: 'curricula', label: 'Curricula', element: page(() => import('./pages/operator/CurriculaPage'), 'CurriculaPage') },
  { path: 'settings', label: 'Settings', element: page(() => import('./pages/operator/SettingsPage'), 'SettingsPage') },
  { path: 'mail-server', label: 'Mail server', element: page(() => import('./pages/operator/MailServerPage'), 'MailServerPage') },
  { path: 'accounts', label: 'Accounts', element: page(() => import('./pages/operator/AccountsPage'), 'AccountsPage') },
  { path: 'backups', label: 'Backups', element: page(() => import('./pages/operator/BackupsPage'), 'BackupsPage') },
  { path: 'jobs', label: 'Jobs', element: page(() => import('./pages/operator/JobsPage'), 'JobsPage') },
  { path: 'audit-log', label: 'Audit log', element: page(() => import('./pages/audit/AuditLogPage'), 'OperatorAuditLogPage') },
];
