import { getProctoringFeed, getSubmissionDetail, gradeSubmission, listSubmissions, voidSubmission } from '../../commands/exams/submissions.js';
import { signedFileUrl } from '../../files/storage.js';
import { callerScopes, defineRoute } from '../../http/route.js';
import { grants } from '../../policies/scopes.js';
import { presentProctoringFeed, presentSubmission, presentSubmissionDetail } from '../../presenters/submission.js';
import {
  gradeSubmissionBody,
  listSubmissionsQuery,
  proctoringFeedSchema,
  submissionDetailSchema,
  submissionPage,
  submissionParams,
  submissionSchema,
  voidSubmissionBody,
} from './schema.js';

export const submissionRoutes = [
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/submissions',
    operationId: 'listSubmissions',
    summary: 'List submissions',
    description: 'Oldest first by `submitted_at` (then id). Filters combine with AND.',
    tag: 'Submissions',
    scope: 'submissions:read',
    query: listSubmissionsQuery,
    response: submissionPage,
    handler: async ({ tenant, query }) => {
      const page = await listSubmissions(tenant, query);
      return { ...page, items: page.items.map(presentSubmission) };
    },
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/submissions/{id}',
    operationId: 'getSubmission',
    summary: 'Read a submission with attachments, AI usage and proctoring summary',
    description:
      'Attachment links are signed, need no key and expire within 15 minutes. `recordings` (proctoring recordings of the attempt) is present only for keys holding `submissions:write`.',
    tag: 'Submissions',
    scope: 'submissions:read',
    params: submissionParams,
    response: submissionDetailSchema,
    errors: ['not_found'],
    handler: async ({ tenant, params, auth, ctx }) => {
      // Recordings are unlocked by `submissions:write` alone (docs/api.md#what-never-appears-in-a-response-or-a-log).
      const withRecordings = grants(callerScopes(auth), 'submissions:write');
      const detail = await getSubmissionDetail(tenant, params.id, { withRecordings });
      const now = Date.now();
      const baseUrl = await ctx.publicUrl();
      return presentSubmissionDetail(detail, (file) => signedFileUrl(ctx.db, baseUrl, file, now));
    },
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/submissions/{id}/events',
    operationId: 'getSubmissionEvents',
    summary: 'Read the proctoring event feed of a submission',
    description: 'The attempt, counts per event type (`focus_lost` and `recorder_error` always present) and every event, ordered by `at`.',
    tag: 'Submissions',
    scope: 'submissions:read',
    params: submissionParams,
    response: proctoringFeedSchema,
    errors: ['not_found'],
    handler: async ({ tenant, params }) => presentProctoringFeed(await getProctoringFeed(tenant, params.id)),
  }),
  defineRoute({
    caller: 'key',
    method: 'post',
    path: '/submissions/{id}/grade',
    operationId: 'gradeSubmission',
    summary: 'Grade a submission or request a resubmission',
    description:
      "`score` from 0 to the exam's `max_score` records the grade (status `graded`) and emits `exam.graded` with the outcome; regrading is allowed and emits it again. " +
      '`score` -1 requests a resubmission (status `resubmission_requested`, score null) and emits `submission.resubmission_requested`. ' +
      'Any other score is `422 validation_error`; a voided submission is `409 conflict`. `feedback` and `graded_by` replace earlier ones (omitted: null).',
    tag: 'Submissions',
    scope: 'submissions:write',
    params: submissionParams,
    body: gradeSubmissionBody,
    response: submissionSchema,
    errors: ['not_found', 'conflict'],
    handler: async ({ tenant, params, body }) => presentSubmission(await gradeSubmission(tenant, params.id, body)),
  }),
  defineRoute({
    caller: 'key',
    method: 'post',
    path: '/submissions/{id}/void',
    operationId: 'voidSubmission',
    summary: 'Void a submission',
    description:
      'Status becomes `voided`; score and feedback are kept as they were. Emits `submission.voided`. An already voided submission is `409 void_failed`. The `reason` is stored, never returned.',
    tag: 'Submissions',
    scope: 'submissions:write',
    params: submissionParams,
    body: voidSubmissionBody,
    response: submissionSchema,
    errors: ['not_found', 'void_failed'],
    handler: async ({ tenant, params, body }) => presentSubmission(await voidSubmission(tenant, params.id, body.reason)),
  }),
];
