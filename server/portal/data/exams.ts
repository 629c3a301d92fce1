import { examScores } from '../../commands/exam-results.js';
import { getExamDetail, listExams } from '../../commands/exams.js';
import { getProctoringFeed, getSubmissionDetail, gradeSubmission, listSubmissions, voidSubmission } from '../../commands/submissions.js';
import { signedFileUrl } from '../../files/storage.js';
import { z } from '../../http/zod.js';
import { presentExam, presentExamDetail, presentScoreRow } from '../../presenters/exam.js';
import { presentProctoringFeed, presentSubmission, presentSubmissionDetail } from '../../presenters/submission.js';
import { examDetailSchema, examPage, examParams, listExamsQuery, scoreList } from '../../routes/exams/schema.js';
import {
  gradeSubmissionBody,
  listSubmissionsQuery,
  proctoringFeedSchema,
  submissionDetailSchema,
  submissionPage,
  submissionParams,
  submissionSchema,
  voidSubmissionBody,
} from '../../routes/submissions/schema.js';
import { dataRoute, institutionId } from './route.js';

const institutionParams = z.strictObject({ id: institutionId });
const examPathParams = z.strictObject({ id: institutionId, examId: examParams.shape.id });
const submissionPathParams = z.strictObject({ id: institutionId, submissionId: submissionParams.shape.id });

/**
 * Exams are browsed here (they are made and run by the LMS through /v1) with the API's presenters:
 * hidden tests appear only as file refs, never their contents or key. Submissions are browsed,
 * graded and voided with the API's commands, so the same events follow.
 */
export const examRoutes = [
  dataRoute({
    method: 'get',
    path: '/institutions/{id}/exams',
    summary: 'List exams (`q` searches the title; the filters of GET /v1/exams)',
    params: institutionParams,
    query: listExamsQuery,
    response: examPage,
    handler: async ({ access, query }) => {
      const page = await listExams(access.tenant, query);
      return { ...page, items: page.items.map(presentExam) };
    },
  }),
  dataRoute({
    method: 'get',
    path: '/institutions/{id}/exams/{examId}',
    summary: 'Read an exam with its groups and stats',
    params: examPathParams,
    response: examDetailSchema,
    handler: async ({ access, params }) => presentExamDetail(await getExamDetail(access.tenant, params.examId)),
  }),
  dataRoute({
    method: 'get',
    path: '/institutions/{id}/exams/{examId}/scores',
    summary: "Every assigned student's latest score on an exam",
    params: examPathParams,
    response: scoreList,
    handler: async ({ access, params }) => ({ items: (await examScores(access.tenant, params.examId)).map(presentScoreRow) }),
  }),

  dataRoute({
    method: 'get',
    path: '/institutions/{id}/submissions',
    summary: 'List submissions (filters `exam_id`, `student_id`, `status`, `since`)',
    params: institutionParams,
    query: listSubmissionsQuery,
    response: submissionPage,
    handler: async ({ access, query }) => {
      const page = await listSubmissions(access.tenant, query);
      return { ...page, items: page.items.map(presentSubmission) };
    },
  }),
  dataRoute({
    method: 'get',
    path: '/institutions/{id}/submissions/{submissionId}',
    summary: 'Read a submission with signed attachment and recording links',
    params: submissionPathParams,
    response: submissionDetailSchema,
    handler: async ({ ctx, access, params }) => {
      // Recordings follow `submissions:write` in the API; an admin can grant any scope, so holds it.
      const detail = await getSubmissionDetail(access.tenant, params.submissionId, { withRecordings: true });
      const now = Date.now();
      return presentSubmissionDetail(detail, (file) => signedFileUrl(ctx.db, ctx.portalUrl, file, now));
    },
  }),
  dataRoute({
    method: 'get',
    path: '/institutions/{id}/submissions/{submissionId}/events',
    summary: 'The proctoring event feed of a submission',
    params: submissionPathParams,
    response: proctoringFeedSchema,
    handler: async ({ access, params }) => presentProctoringFeed(await getProctoringFeed(access.tenant, params.submissionId)),
  }),
  dataRoute({
    method: 'post',
    path: '/institutions/{id}/submissions/{submissionId}/grade',
    summary: 'Grade (emits `exam.graded`) or, with score -1, request a resubmission',
    params: submissionPathParams,
    body: gradeSubmissionBody,
    response: submissionSchema,
    handler: async ({ access, params, body }) => presentSubmission(await gradeSubmission(access.tenant, params.submissionId, body)),
  }),
  dataRoute({
    method: 'post',
    path: '/institutions/{id}/submissions/{submissionId}/void',
    summary: 'Void a submission (a second void is 409 void_failed)',
    params: submissionPathParams,
    body: voidSubmissionBody,
    response: submissionSchema,
    handler: async ({ access, params, body }) => presentSubmission(await voidSubmission(access.tenant, params.submissionId, body.reason)),
  }),
];
