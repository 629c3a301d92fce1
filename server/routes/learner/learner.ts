import {
  checkAttemptTakesFiles,
  recordProctoringEvents,
  releaseHiddenKey,
  startAttempt,
  storeAttemptFile,
  submitAttempt,
} from '../../commands/learner/learner.js';
import { examArchives } from '../../commands/exams/archives.js';
import type { LearnerAuth } from '../../commands/learner/auth.js';
import { getAssignedExam, listAssignedExams, type AssignedExam } from '../../commands/learner/exams.js';
import type { AppContext } from '../../context.js';
import { MAX_UPLOAD_BYTES, signedFileUrl } from '../../files/storage.js';
import type { FileLinker } from '../../presenters/submission.js';
import { defineRoute, type ApiRoute } from '../../http/route.js';
import { presentAttempt } from '../../presenters/attempt.js';
import { presentAttemptFile, presentLearnerExam, presentLearnerUser, presentSubmissionReceipt } from '../../presenters/learner.js';
import {
  attemptFileSchema,
  attemptParams,
  attemptSchema,
  eventsAccepted,
  eventsBody,
  examParams,
  fileQuery,
  hiddenKeySchema,
  learnerExamList,
  learnerExamSchema,
  learnerUserSchema,
  submissionReceiptSchema,
  submitBody,
} from './schema.js';

const STUDENTS_ONLY = "Students only: a faculty member's session is `403 forbidden`.";

/** Learner exams with their archives, each link made for this student. */
async function presentWithArchives(learner: LearnerAuth, ctx: AppContext, items: AssignedExam[]) {
  const archives = await examArchives(
    learner.tenant,
    items.map((item) => item.exam),
  );
  const [now, baseUrl, holder] = [Date.now(), await ctx.publicUrl(), { studentId: learner.person.id }];
  const link: FileLinker = (file) => signedFileUrl(ctx.db, baseUrl, file, now, holder);
  return items.map((item) => presentLearnerExam(item, archives.get(item.exam.id) ?? [], link));
}

/** The learner side (`/app/*`): what the suite's apps and the portal's /launch page call with a learner session. */
export const learnerRoutes: ApiRoute[] = [
  defineRoute({
    caller: 'learner',
    method: 'get',
    path: '/app/me',
    operationId: 'getLearnerMe',
    summary: 'Learner: the signed-in user',
    tag: 'SSO',
    response: learnerUserSchema,
    handler: async ({ learner }) => presentLearnerUser(learner.person),
  }),
  defineRoute({
    caller: 'learner',
    method: 'get',
    path: '/app/exams',
    operationId: 'listLearnerExams',
    summary: 'Learner: my assigned exams',
    description: `Published exams assigned to the student through their groups, with the student's newest submission; by due date, undated last. ${STUDENTS_ONLY}`,
    tag: 'SSO',
    response: learnerExamList,
    errors: ['forbidden'],
    handler: async ({ learner, ctx }) => {
      const items = await listAssignedExams(learner);
      return { items: await presentWithArchives(learner, ctx, items) };
    },
  }),
  defineRoute({
    caller: 'learner',
    method: 'get',
    path: '/app/exams/{id}',
    operationId: 'getLearnerExam',
    summary: 'Learner: one of my assigned exams',
    description: `One exam of GET /app/exams, with fresh archive links; any other exam id is \`404 not_found\`. ${STUDENTS_ONLY}`,
    tag: 'SSO',
    params: examParams,
    response: learnerExamSchema,
    errors: ['forbidden', 'not_found'],
    handler: async ({ learner, params, ctx }) => {
      const [exam] = await presentWithArchives(learner, ctx, [await getAssignedExam(learner, params.id)]);
      return exam!;
    },
  }),
  defineRoute({
    caller: 'learner',
    method: 'post',
    path: '/app/exams/{id}/attempts',
    operationId: 'startLearnerAttempt',
    summary: 'Learner: start (or resume) an attempt',
    description:
      'Unknown exam: `404 not_found`; not published or not assigned to the student: `409 conflict`. ' +
      'An open attempt (not submitted, time left) is returned instead of a new one. An attempt whose time ran out unsubmitted, ' +
      'or a submission that is not `resubmission_requested`, is `409 conflict`; after a resubmission request a new attempt starts. ' +
      STUDENTS_ONLY,
    tag: 'SSO',
    params: examParams,
    response: attemptSchema,
    errors: ['forbidden', 'not_found', 'conflict'],
    handler: async ({ learner, params }) => presentAttempt(await startAttempt(learner, params.id)),
  }),
  defineRoute({
    caller: 'learner',
    method: 'post',
    path: '/app/attempts/{id}/events',
    operationId: 'recordLearnerProctoringEvents',
    summary: 'Learner: record proctoring events',
    description: `1 to 500 events of the student's own attempt (else \`404 not_found\`) that is not submitted (else \`409 conflict\`). ${STUDENTS_ONLY}`,
    tag: 'SSO',
    params: attemptParams,
    body: eventsBody,
    response: eventsAccepted,
    errors: ['forbidden', 'not_found', 'conflict'],
    handler: async ({ learner, params, body }) => ({ accepted: await recordProctoringEvents(learner, params.id, body.events) }),
  }),
  defineRoute({
    caller: 'learner',
    method: 'post',
    path: '/app/attempts/{id}/hidden-key',
    operationId: 'releaseLearnerHiddenKey',
    summary: 'Learner: receive the hidden-tests key',
    description:
      "For an open attempt of a published exam (else `409 conflict`). The first call sets the attempt's `hidden_released_at`. " +
      `No key stored for the exam: \`404 no_secret\`. ${STUDENTS_ONLY}`,
    tag: 'SSO',
    params: attemptParams,
    response: hiddenKeySchema,
    errors: ['forbidden', 'not_found', 'no_secret', 'conflict'],
    handler: async ({ learner, params }) => ({ hidden_key_b64: await releaseHiddenKey(learner, params.id) }),
  }),
  defineRoute({
    caller: 'learner',
    method: 'post',
    path: '/app/attempts/{id}/files',
    operationId: 'uploadLearnerAttemptFile',
    summary: 'Learner: upload a file for the submission',
    description: `Multipart, one field \`file\`, at most 50 MB (\`422 file_too_large\`), for an open attempt of a published exam (else \`409 conflict\`). ${STUDENTS_ONLY}`,
    tag: 'SSO',
    params: attemptParams,
    query: fileQuery,
    upload: { maxBytes: MAX_UPLOAD_BYTES, before: ({ learner, params }) => checkAttemptTakesFiles(learner, params.id) },
    response: attemptFileSchema,
    errors: ['forbidden', 'not_found', 'conflict', 'file_too_large'],
    handler: async ({ learner, params, query, file, ctx }) =>
      presentAttemptFile(await storeAttemptFile(learner, params.id, file, query.kind, ctx.config.dataDir)),
  }),
  defineRoute({
    caller: 'learner',
    method: 'post',
    path: '/app/attempts/{id}/submit',
    operationId: 'submitLearnerAttempt',
    summary: 'Learner: submit the attempt',
    description:
      'Creates the submission and emits `submission.created`. Already submitted, time run out, or exam closed: `409 conflict`. ' +
      'After a resubmission request the student submits again on the same attempt (its time limit no longer applies), or starts a new one; not both. ' +
      STUDENTS_ONLY,
    tag: 'SSO',
    params: attemptParams,
    body: submitBody,
    response: submissionReceiptSchema,
    errors: ['forbidden', 'not_found', 'conflict'],
    handler: async ({ learner, params, body }) => presentSubmissionReceipt(await submitAttempt(learner, params.id, body)),
  }),
];
