import { gradeFromLms, gradingOverview, gradingSubmission } from '../../commands/lms/grading.js';
import { signedFileUrl } from '../../files/storage.js';
import { defineRoute, type ApiRoute } from '../../http/route.js';
import { presentSubmission, presentSubmissionDetail } from '../../presenters/submission.js';
import { submissionParams, submissionSchema } from '../submissions/schema.js';
import { gradingBody, gradingPage, gradingQuery, gradingSubmissionSchema } from './grading.schema.js';

const GRADING_ONLY =
  "Only with a grading session, the one an instructor's LTI launch of the exam opens (docs/lms.md#grading-from-the-lms); any other session is `403 forbidden`. " +
  'A submission of another exam is `404 not_found`, as an unknown id.';

const presentStudent = (student: { id: string; full_name: string; login_email: string } | null) =>
  student ? { id: student.id, full_name: student.full_name, login_email: student.login_email } : null;

/** Grading from the LMS (`/app/grading*`): the exam of an instructor's launch, its submissions, their grades. */
export const gradingLearnerRoutes: ApiRoute[] = [
  defineRoute({
    caller: 'learner',
    method: 'get',
    path: '/app/grading',
    operationId: 'getGradingOverview',
    summary: 'Grading: the exam and a page of its submissions',
    description: `The exam this session grades and its submissions, oldest first, each with its student. ${GRADING_ONLY}`,
    tag: 'SSO',
    query: gradingQuery,
    response: gradingPage,
    errors: ['forbidden', 'not_found'],
    handler: async ({ learner, query }) => {
      const { exam, items, ...page } = await gradingOverview(learner, query);
      return {
        ...page,
        exam: { id: exam.id, title: exam.title, max_score: exam.max_score === null ? null : Number(exam.max_score) },
        items: items.map((row) => ({ ...presentSubmission(row.submission), student: presentStudent(row.student) })),
      };
    },
  }),
  defineRoute({
    caller: 'learner',
    method: 'get',
    path: '/app/grading/submissions/{id}',
    operationId: 'getGradingSubmission',
    summary: 'Grading: one submission with its answers and files',
    description: `Answers, attachments (signed links, 15 minutes) and the proctoring summary; never recordings. ${GRADING_ONLY}`,
    tag: 'SSO',
    params: submissionParams,
    response: gradingSubmissionSchema,
    errors: ['forbidden', 'not_found'],
    handler: async ({ learner, params, ctx }) => {
      const { detail, student } = await gradingSubmission(learner, params.id);
      const [now, baseUrl] = [Date.now(), await ctx.publicUrl()];
      return { ...presentSubmissionDetail(detail, (file) => signedFileUrl(ctx.db, baseUrl, file, now)), student: presentStudent(student) };
    },
  }),
  defineRoute({
    caller: 'learner',
    method: 'post',
    path: '/app/grading/submissions/{id}/grade',
    operationId: 'gradeFromLms',
    summary: 'Grading: grade a submission or ask for a resubmission',
    description:
      "As `POST /submissions/{id}/grade` (the same range checks, events and grade passback), with `graded_by` set to the teacher's name. " +
      `Each call is in the institution's audit log under the teacher's e-mail. ${GRADING_ONLY}`,
    tag: 'SSO',
    params: submissionParams,
    body: gradingBody,
    response: submissionSchema,
    errors: ['forbidden', 'not_found', 'conflict'],
    handler: async ({ learner, params, body, requestId }) => presentSubmission(await gradeFromLms(learner, params.id, body, requestId)),
  }),
];
