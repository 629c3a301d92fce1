import { createHash } from 'node:crypto';
import { Op } from 'sequelize';
import type { Tenant, TenantTx } from '../../db/tenant.js';
import { newId } from '../../ids.js';
import type { ExamRow } from '../../models/exam.js';
import type { OneRosterGradebookAttemptRow, OneRosterGradebookPostRow } from '../../models/oneroster-gradebook.js';
import type { SubmissionRow } from '../../models/submission.js';
import { freshPost, replayPost } from '../lms/outbound-posts.js';

// Grades back to the SIS (OneRoster 1.2 Gradebook REST binding): what is queued when a grade is
// recorded. The sending is gradebook-send.ts; the queue is outbound-posts.ts, shared with AGS.

/** The one category every exam's line item names; `PUT` before a line item that needs it. */
export const GRADEBOOK_CATEGORY = { sourcedId: 'campusbridge-exams', title: 'CampusBridge exams' } as const;

/** Short, URL-safe and stable: a class's sourcedId may be long or hold any character. */
const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest('base64url').slice(0, 12);

/** The exam's line item in one SIS class: the same sourcedId for every grade of the exam in that class. */
export const lineItemSourcedId = (examId: string, classSourcedId: string) => `campusbridge-${examId}-${digest(classSourcedId)}`;

/** One student's result on that line item: a regrade `PUT`s the same result with the new score. */
export const resultSourcedId = (lineItem: string, studentId: string) => `${lineItem}-${studentId}`;

type ExamFields = Pick<ExamRow, 'id' | 'title' | 'description' | 'due_date' | 'published_at' | 'closed_at' | 'created_at'>;

/** The lineItem as sent, less `school` (read from the SIS's class when it is sent) and `dateLastModified`. */
function lineItemPayload(exam: ExamFields, sourcedId: string, classSourcedId: string, maxScore: number): Record<string, unknown> {
  const assigned = exam.published_at ?? exam.created_at;
  return {
    sourcedId,
    status: 'active',
    title: exam.title.slice(0, 300),
    ...(exam.description ? { description: exam.description.slice(0, 2000) } : {}),
    assignDate: assigned.toISOString(),
    dueDate: (exam.due_date ?? exam.closed_at ?? assigned).toISOString(),
    class: { sourcedId: classSourcedId, type: 'class' },
    category: { sourcedId: GRADEBOOK_CATEGORY.sourcedId, type: 'category' },
    resultValueMin: 0,
    resultValueMax: maxScore,
  };
}

/** The line item of the exam in the class, written (or changed, to be sent again) in the grade's transaction. */
async function keepLineItem(tx: TenantTx, connectionId: string, exam: ExamFields, classSourcedId: string, maxScore: number, now: Date): Promise<string> {
  const sourcedId = lineItemSourcedId(exam.id, classSourcedId);
  const payload = lineItemPayload(exam, sourcedId, classSourcedId, maxScore);
  const existing = await tx.onerosterLineItems.findOne({ where: { connection_id: connectionId, sourced_id: sourcedId } });
  if (!existing) {
    await tx.onerosterLineItems.create({
      id: newId('oli'),
      connection_id: connectionId,
      sourced_id: sourcedId,
      exam_id: exam.id,
      class_sourced_id: classSourcedId,
      payload,
      delivered_at: null,
      updated_at: now,
    });
  } else if (JSON.stringify(existing.payload) !== JSON.stringify(payload)) {
    await tx.onerosterLineItems.update({ payload, delivered_at: null, updated_at: now }, { id: existing.id });
  }
  return sourcedId;
}

/**
 * Called by gradeSubmission in the grade's own transaction, beside enqueueLtiScores: when the
 * institution's SIS connection has gradebook write-back on, the exam has a maximum score and the
 * student came from the SIS, a result post per SIS class of the exam's audience the student is in
 * (a class synced into a group the exam is assigned to). The line item is kept beside it and sent
 * once per class, before its first result. Earlier unsent posts of the same result are superseded:
 * only the newest grade goes.
 */
export async function enqueueGradebookResults(tx: TenantTx, submission: SubmissionRow, maxScore: number | null, now = new Date()): Promise<number> {
  if (maxScore === null || submission.score === null) return 0;
  const connection = await tx.onerosterConnections.findOne();
  if (!connection || !connection.gradebook_writeback || connection.source !== 'rest') return 0;
  const student = await tx.onerosterLinks.findOne({ where: { connection_id: connection.id, kind: 'user', target_id: submission.student_id } });
  if (!student) return 0;
  const assigned = (await tx.examAssignments.findAll({ attributes: ['group_id'], where: { exam_id: submission.exam_id } })).map((row) => row.group_id);
  if (assigned.length === 0) return 0;
  const memberOf = (
    await tx.groupMembers.findAll({ attributes: ['group_id'], where: { group_id: { [Op.in]: assigned }, student_id: submission.student_id } })
  ).map((row) => row.group_id);
  if (memberOf.length === 0) return 0;
  const classes = await tx.onerosterLinks.findAll({
    where: { connection_id: connection.id, kind: 'class', active: true, target_id: { [Op.in]: memberOf } },
    order: [['sourced_id', 'ASC']],
  });
  if (classes.length === 0) return 0;
  const exam = await tx.exams.findById(submission.exam_id, {
    attributes: ['id', 'title', 'description', 'due_date', 'published_at', 'closed_at', 'created_at'],
  });
  if (!exam) return 0;
  const gradedAt = submission.graded_at ?? now;
  let queued = 0;
  for (const sisClass of classes) {
    const lineItem = await keepLineItem(tx, connection.id, exam, sisClass.sourced_id, maxScore, now);
    const result = resultSourcedId(lineItem, submission.student_id);
    await tx.onerosterGradebookPosts.update(
      { status: 'superseded', next_attempt_at: null },
      { connection_id: connection.id, result_sourced_id: result, status: { [Op.in]: ['pending', 'dead'] } },
    );
    await tx.onerosterGradebookPosts.create({
      id: newId('ogp'),
      connection_id: connection.id,
      submission_id: submission.id,
      exam_id: submission.exam_id,
      student_id: submission.student_id,
      line_item_sourced_id: lineItem,
      result_sourced_id: result,
      payload: {
        sourcedId: result,
        status: 'active',
        dateLastModified: gradedAt.toISOString(),
        lineItem: { sourcedId: lineItem, type: 'lineItem' },
        student: { sourcedId: student.sourced_id, type: 'user' },
        class: { sourcedId: sisClass.sourced_id, type: 'class' },
        scoreStatus: 'fully graded',
        score: Number(submission.score),
        scoreDate: gradedAt.toISOString().slice(0, 10),
        ...(submission.feedback ? { comment: submission.feedback.slice(0, 2000) } : {}),
      },
      ...freshPost(now),
    });
    queued += 1;
  }
  return queued;
}

export interface GradebookPostWithAttempts {
  post: OneRosterGradebookPostRow;
  attempts: OneRosterGradebookAttemptRow[];
}

/** The newest result posts of the institution with their attempts, for the portal. */
export async function listGradebookPosts(tenant: Tenant, limit = 100): Promise<GradebookPostWithAttempts[]> {
  const posts = await tenant.onerosterGradebookPosts.findAll({
    order: [
      ['created_at', 'DESC'],
      ['id', 'DESC'],
    ],
    limit,
  });
  if (posts.length === 0) return [];
  const attempts = await tenant.onerosterGradebookAttempts.findAll({ where: { post_id: { [Op.in]: posts.map((post) => post.id) } }, order: [['at', 'ASC']] });
  return posts.map((post) => ({ post, attempts: attempts.filter((attempt) => attempt.post_id === post.id) }));
}

/** A dead (or waiting) result post sent again now: the portal's Retry. */
export function retryGradebookPost(tenant: Tenant, id: string): Promise<boolean> {
  return replayPost(tenant, (tx) => tx.onerosterGradebookPosts, id);
}
