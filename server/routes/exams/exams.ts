import { examArchives } from '../../commands/exams/archives.js';
import { signedFileUrl } from '../../files/storage.js';
import type { Response } from 'express';
import { examAnalytics, examScores, listExamAttempts, scoresCsvLines } from '../../commands/exams/results.js';
import { assignGroups, listAssignments, unassignGroup } from '../../commands/exams/assignments.js';
import { closeExam, createExam, deleteExam, publishExam, updateExam } from '../../commands/exams/exams.js';
import { getExamDetail, listExams } from '../../commands/exams/lists.js';
import { defineRoute, RawResponse } from '../../http/route.js';
import { presentAttempt } from '../../presenters/attempt.js';
import { presentAssignment, presentExam, presentExamDetail, presentScoreRow } from '../../presenters/exam.js';
import { analyticsSchema, attemptPage, scoreList, scoresCsv } from './schema-results.js';
import { assignBody, assignmentList, assignResponse, unassignResponse } from './schema-assignments.js';
import {
  createExamBody,
  deleteExamResponse,
  examDetailSchema,
  examGroupParams,
  examPage,
  examPageQuery,
  examParams,
  examSchema,
  listExamsQuery,
  updateExamBody,
} from './schema.js';

/** Writes line by line, waiting when the client reads slower than we write; stops if it goes away. */
async function streamLines(res: Response, lines: Iterable<string>): Promise<void> {
  for (const line of lines) {
    if (res.destroyed) return;
    if (!res.write(line)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  }
  res.end();
}

export const examRoutes = [
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/exams',
    operationId: 'listExams',
    summary: 'List exams',
    description: 'Oldest first. For incremental sync, pass the newest `updated_at` seen as `updated_since`.',
    tag: 'Exams',
    scope: 'exams:read',
    query: listExamsQuery,
    response: examPage,
    handler: async ({ tenant, query }) => {
      const page = await listExams(tenant, query);
      return { ...page, items: page.items.map(presentExam) };
    },
  }),
  defineRoute({
    caller: 'key',
    method: 'post',
    path: '/exams',
    operationId: 'createExam',
    summary: 'Create an exam',
    description:
      'Created as a `draft`, or `published` with `publish: true`. `exam_type` defaults to `exam`, `app` to `learning`, `proctoring` and `ai_policy` to the institution config. ' +
      'With `group_ids` the exam is assigned at once; when it is also published, the assigned students (at their personal email) and their verified guardians are emailed. ' +
      '`code_spec` file refs can only be set by PATCH once uploaded.',
    tag: 'Exams',
    scope: 'exams:write',
    body: createExamBody,
    response: examSchema,
    errors: ['no_owner', 'invalid_faculty'],
    handler: async ({ tenant, body }) => presentExam(await createExam(tenant, body)),
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/exams/{id}',
    operationId: 'getExam',
    summary: 'Read an exam with its groups, stats and archives',
    description:
      "`files` lists the archives the exam's `code_spec` names, each with a signed link (no key needed, at most 15 minutes): " +
      'the same archives a student downloads during an attempt.',
    tag: 'Exams',
    scope: 'exams:read',
    params: examParams,
    response: examDetailSchema,
    errors: ['not_found'],
    handler: async ({ tenant, params, ctx }) => {
      const detail = await getExamDetail(tenant, params.id);
      const archives = (await examArchives(tenant, [detail.exam])).get(detail.exam.id) ?? [];
      const [now, baseUrl] = [Date.now(), await ctx.publicUrl()];
      return presentExamDetail(detail, archives, (file) => signedFileUrl(ctx.db, baseUrl, file, now));
    },
  }),
  defineRoute({
    caller: 'key',
    method: 'patch',
    path: '/exams/{id}',
    operationId: 'updateExam',
    summary: 'Update an exam',
    description:
      'Changes the fields given, in any state; `status` changes only through publish and close. `proctoring`, `ai_policy` and `code_spec` are replaced whole.',
    tag: 'Exams',
    scope: 'exams:write',
    params: examParams,
    body: updateExamBody,
    response: examSchema,
    errors: ['not_found', 'no_owner', 'invalid_faculty'],
    handler: async ({ tenant, params, body }) => presentExam(await updateExam(tenant, params.id, body)),
  }),
  defineRoute({
    caller: 'key',
    method: 'delete',
    path: '/exams/{id}',
    operationId: 'deleteExam',
    summary: 'Delete an exam nobody has submitted to',
    description:
      'Removes the exam, its assignments, attempts, uploaded files and hidden-tests key. Once any submission exists: `409 conflict` (close it instead).',
    tag: 'Exams',
    scope: 'exams:write',
    params: examParams,
    response: deleteExamResponse,
    errors: ['not_found', 'conflict'],
    handler: async ({ tenant, params, ctx }) => deleteExam(tenant, params.id, { dataDir: ctx.config.dataDir }),
  }),
  defineRoute({
    caller: 'key',
    method: 'post',
    path: '/exams/{id}/publish',
    operationId: 'publishExam',
    summary: 'Publish an exam',
    description:
      'draft → published; emails the students of the assigned groups (at their personal email) and their verified guardians. Publishing a published exam changes nothing; a closed one is `409 conflict`.',
    tag: 'Exams',
    scope: 'exams:write',
    params: examParams,
    response: examSchema,
    errors: ['not_found', 'conflict'],
    handler: async ({ tenant, params }) => presentExam(await publishExam(tenant, params.id)),
  }),
  defineRoute({
    caller: 'key',
    method: 'post',
    path: '/exams/{id}/close',
    operationId: 'closeExam',
    summary: 'Close an exam',
    description: 'draft or published → closed. Closing a closed exam changes nothing.',
    tag: 'Exams',
    scope: 'exams:write',
    params: examParams,
    response: examSchema,
    errors: ['not_found'],
    handler: async ({ tenant, params }) => presentExam(await closeExam(tenant, params.id)),
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/exams/{id}/assignments',
    operationId: 'listExamAssignments',
    summary: 'List the groups an exam is assigned to',
    tag: 'Exams',
    scope: 'exams:read',
    params: examParams,
    response: assignmentList,
    errors: ['not_found'],
    handler: async ({ tenant, params }) => ({ items: (await listAssignments(tenant, params.id)).map(presentAssignment) }),
  }),
  defineRoute({
    caller: 'key',
    method: 'post',
    path: '/exams/{id}/assignments',
    operationId: 'assignExam',
    summary: 'Assign an exam to groups',
    description:
      'Groups already assigned stay as they are. Any id that is not a group of this institution is `422 validation_error` naming it, and nothing is assigned. ' +
      'On a published exam, the students newly reached (at their personal email) and their verified guardians are emailed; a draft mails when it is published.',
    tag: 'Exams',
    scope: 'exams:write',
    params: examParams,
    body: assignBody,
    response: assignResponse,
    errors: ['not_found'],
    handler: async ({ tenant, params, body }) => {
      const result = await assignGroups(tenant, params.id, body.group_ids);
      return { items: result.items.map(presentAssignment), assigned: result.assigned };
    },
  }),
  defineRoute({
    caller: 'key',
    method: 'delete',
    path: '/exams/{id}/assignments/{groupId}',
    operationId: 'unassignExam',
    summary: 'Unassign a group from an exam',
    description: 'A group that is not assigned: `404 not_found`. Submissions already made stay.',
    tag: 'Exams',
    scope: 'exams:write',
    params: examGroupParams,
    response: unassignResponse,
    errors: ['not_found'],
    handler: async ({ tenant, params }) => unassignGroup(tenant, params.id, params.groupId),
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/exams/{id}/attempts',
    operationId: 'listExamAttempts',
    summary: "List an exam's attempts",
    description: 'Oldest first.',
    tag: 'Exams',
    scope: 'submissions:read',
    params: examParams,
    query: examPageQuery,
    response: attemptPage,
    errors: ['not_found'],
    handler: async ({ tenant, params, query }) => {
      const page = await listExamAttempts(tenant, params.id, query);
      return { ...page, items: page.items.map(presentAttempt) };
    },
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/exams/{id}/analytics',
    operationId: 'getExamAnalytics',
    summary: 'Score analytics of an exam',
    description: 'Over every graded submission (voided and ungraded ones excluded). With none, the numbers are null and the histogram is empty.',
    tag: 'Exams',
    scope: 'submissions:read',
    params: examParams,
    response: analyticsSchema,
    errors: ['not_found'],
    handler: async ({ tenant, params }) => examAnalytics(tenant, params.id),
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/exams/{id}/scores',
    operationId: 'listExamScores',
    summary: 'Every score of an exam',
    description:
      'One row per student assigned through a group or having a submission, with their latest submission that is not voided (nulls when none), ordered by full name.',
    tag: 'Exams',
    scope: 'submissions:read',
    params: examParams,
    response: scoreList,
    errors: ['not_found'],
    handler: async ({ tenant, params }) => ({ items: (await examScores(tenant, params.id)).map(presentScoreRow) }),
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/exams/{id}/export.csv',
    operationId: 'exportExamScores',
    summary: 'Export the scores as CSV',
    description: 'The rows of GET /exams/{id}/scores with `submitted_at` and `graded_at`, as an attachment. Errors still answer the JSON envelope.',
    tag: 'Exams',
    scope: 'submissions:read',
    params: examParams,
    produces: 'text/csv',
    response: scoresCsv,
    errors: ['not_found'],
    handler: async ({ tenant, params }) => {
      // Read before the first byte, so a 404 is still an ordinary JSON error.
      const rows = await examScores(tenant, params.id);
      return new RawResponse(async (res) => {
        res.status(200);
        res.setHeader('Content-Type', 'text/csv; charset=utf-8');
        res.setHeader('Content-Disposition', `attachment; filename="exam-${params.id}-scores.csv"`);
        res.setHeader('Cache-Control', 'no-store');
        await streamLines(res, scoresCsvLines(rows));
      });
    },
  }),
];
