import { listGuardianReports, previewWeeklyReport } from '../../commands/people/guardian-reports.js';
import { createGuardianLink, deleteGuardianLink, listGuardianLinks, resendGuardianInvite } from '../../commands/people/guardians.js';
import { defineRoute } from '../../http/route.js';
import { presentGuardianLink, presentGuardianReport } from '../../presenters/guardian.js';
import {
  createGuardianBody,
  deletedGuardianSchema,
  guardianPage,
  guardianParams,
  guardianSchema,
  listGuardiansQuery,
  listReportsQuery,
  reportPage,
  reportPreviewSchema,
} from './schema.js';
import { studentParams } from '../students/schema.js';

export const guardiansRoutes = [
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/guardians',
    operationId: 'listGuardians',
    summary: 'List guardian links',
    tag: 'Guardians',
    scope: 'guardians:read',
    query: listGuardiansQuery,
    response: guardianPage,
    handler: async ({ tenant, query }) => {
      const page = await listGuardianLinks(tenant, query);
      return { ...page, items: page.items.map(presentGuardianLink) };
    },
  }),
  defineRoute({
    caller: 'key',
    method: 'post',
    path: '/guardians',
    operationId: 'createGuardian',
    summary: 'Link a guardian to a student and email an invitation',
    description:
      'The guardian receives a link to `{portal_url}/guardian/accept?token=…`, valid 7 days; opening it verifies the link. The same student and guardian email twice is `409 already_added`.',
    tag: 'Guardians',
    scope: 'guardians:write',
    body: createGuardianBody,
    response: guardianSchema,
    errors: ['not_found', 'already_added'],
    handler: async ({ tenant, body, ctx }) => presentGuardianLink(await createGuardianLink(tenant, body, { portalUrl: await ctx.publicUrl() })),
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/students/{id}/guardian-report-preview',
    operationId: 'previewGuardianReport',
    summary: "Preview a student's weekly guardian report",
    description:
      "The next weekly report as it stands now: the mail (subject, text and HTML) of the week under way (Monday to Sunday, UTC), which next Monday's report covers, and the verified guardians who will receive it. Nothing is stored or sent. Unknown student: `404 not_found`.",
    tag: 'Guardians',
    scope: 'guardians:read',
    params: studentParams,
    response: reportPreviewSchema,
    errors: ['not_found'],
    handler: async ({ tenant, params }) => {
      const { week, ...mail } = await previewWeeklyReport(tenant, params.id);
      return { week_start: week.start, ...mail };
    },
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/guardians/reports',
    operationId: 'listGuardianReports',
    summary: 'List weekly guardian reports',
    description: 'One report per student with a verified guardian per week (Monday to Sunday, UTC), made on Mondays.',
    tag: 'Guardians',
    scope: 'guardians:read',
    query: listReportsQuery,
    response: reportPage,
    handler: async ({ tenant, query }) => {
      const page = await listGuardianReports(tenant, query);
      return { ...page, items: page.items.map(presentGuardianReport) };
    },
  }),
  defineRoute({
    caller: 'key',
    method: 'post',
    path: '/guardians/{id}/resend',
    operationId: 'resendGuardianInvitation',
    summary: 'Send a new invitation link',
    description: 'The previous link stops working; the new one is valid 7 days. A verified link is `409 already_verified`.',
    tag: 'Guardians',
    scope: 'guardians:write',
    params: guardianParams,
    response: guardianSchema,
    errors: ['not_found', 'already_verified'],
    handler: async ({ tenant, params, ctx }) => presentGuardianLink(await resendGuardianInvite(tenant, params.id, { portalUrl: await ctx.publicUrl() })),
  }),
  defineRoute({
    caller: 'key',
    method: 'delete',
    path: '/guardians/{id}',
    operationId: 'deleteGuardian',
    summary: 'Remove a guardian link',
    tag: 'Guardians',
    scope: 'guardians:write',
    params: guardianParams,
    response: deletedGuardianSchema,
    errors: ['not_found'],
    handler: async ({ tenant, params }) => deleteGuardianLink(tenant, params.id),
  }),
];
