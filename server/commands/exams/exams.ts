import fs from 'node:fs';
import { Op } from 'sequelize';
import type { Tenant, TenantTx } from '../../db/tenant.js';
import { AppError, notFound } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { absolutePath } from '../../files/storage.js';
import { newId } from '../../ids.js';
import type { ExamApp, ExamRow, ExamType } from '../../models/exam.js';
import type { SubmissionStatus } from '../../models/submission.js';
import { validateCodeSpec } from './coding.js';
import { assignedStudentIds, createAssignments, notifyAssigned, resolveGroups, studentsOfGroups } from './audience.js';
import { resolveActiveFaculty } from '../people/people.js';

type JsonObject = Record<string, unknown>;
/** A submission that counts: every status but `voided`. */
export type LiveSubmissionStatus = Exclude<SubmissionStatus, 'voided'>;

export async function findExam(tenant: Tenant, id: string): Promise<ExamRow> {
  const exam = await tenant.exams.findById(id);
  if (!exam) throw notFound('exam');
  return exam;
}

/** Assignments change what the single GET shows, so they move `updated_at` too (for `updated_since`). */
export async function saveExam(tx: TenantTx, exam: ExamRow, changes: Partial<ExamRow> = {}): Promise<void> {
  exam.set(changes);
  exam.changed('updated_at', true);
  await exam.save({ transaction: tx.tx });
}

export interface NewExam {
  faculty_id?: string | null;
  title: string;
  description: string;
  exam_type: ExamType;
  app: ExamApp;
  max_score?: number | null;
  due_date?: string | null;
  time_limit_minutes?: number | null;
  proctoring?: JsonObject;
  ai_policy?: JsonObject;
  code_spec?: JsonObject | null;
  publish: boolean;
  group_ids?: readonly string[];
}

const toDate = (value: string | null | undefined) => (value === undefined || value === null ? null : new Date(value));

/**
 * POST /exams: the exam, its first assignments and its events in one transaction. Checks in
 * order: owner (`no_owner`, `invalid_faculty`), groups, code_spec. Published with groups, the
 * assigned students and their verified guardians are mailed.
 */
export function createExam(tenant: Tenant, input: NewExam): Promise<ExamRow> {
  return tenant.inTransaction(async (tx) => {
    const owner = await resolveActiveFaculty(tx, input.faculty_id);
    const groupIds = await resolveGroups(tx, input.group_ids ?? []);
    if (input.code_spec) await validateCodeSpec(tx, null, input.code_spec);
    const { config } = await tx.institution();
    const now = new Date();
    const exam = await tx.exams.create({
      id: newId('exm'),
      faculty_id: owner.id,
      title: input.title,
      description: input.description,
      exam_type: input.exam_type,
      app: input.app,
      status: input.publish ? 'published' : 'draft',
      max_score: input.max_score ?? null,
      due_date: toDate(input.due_date),
      time_limit_minutes: input.time_limit_minutes ?? null,
      proctoring: input.proctoring ?? { ...config.default_proctoring },
      ai_policy: input.ai_policy ?? { ...config.default_ai_policy },
      code_spec: input.code_spec ?? null,
      published_at: input.publish ? now : null,
      closed_at: null,
    });
    await createAssignments(tx, exam.id, groupIds);
    await emit(tx, 'exam.created', { exam_id: exam.id, faculty_id: owner.id });
    if (groupIds.length > 0) await emit(tx, 'exam.assigned', { exam_id: exam.id, group_ids: groupIds });
    if (input.publish) {
      await emit(tx, 'exam.published', { exam_id: exam.id });
      await notifyAssigned(tx, exam, await studentsOfGroups(tx, groupIds));
    }
    return exam;
  });
}

export interface ExamPatch {
  faculty_id?: string | null;
  title?: string;
  description?: string;
  exam_type?: ExamType;
  app?: ExamApp;
  max_score?: number | null;
  due_date?: string | null;
  time_limit_minutes?: number | null;
  proctoring?: JsonObject;
  ai_policy?: JsonObject;
  code_spec?: JsonObject | null;
}

const sameValue = (a: unknown, b: unknown) =>
  a instanceof Date || b instanceof Date
    ? (a instanceof Date ? a.getTime() : a) === (b instanceof Date ? b.getTime() : b)
    : JSON.stringify(a) === JSON.stringify(b);

/**
 * PATCH: changes what is given, in any state; `updated_at` moves only when a value differs. A
 * `faculty_id` sent is checked even when unchanged. The catalog has no `exam.updated`, so no event.
 */
export function updateExam(tenant: Tenant, id: string, patch: ExamPatch): Promise<ExamRow> {
  return tenant.inTransaction(async (tx) => {
    const exam = await findExam(tx, id);
    const wanted: Partial<ExamRow> = {};
    if (patch.faculty_id !== undefined) wanted.faculty_id = (await resolveActiveFaculty(tx, patch.faculty_id)).id;
    if (patch.code_spec) await validateCodeSpec(tx, exam.id, patch.code_spec);
    if (patch.code_spec !== undefined) wanted.code_spec = patch.code_spec;
    if (patch.title !== undefined) wanted.title = patch.title;
    if (patch.description !== undefined) wanted.description = patch.description;
    if (patch.exam_type !== undefined) wanted.exam_type = patch.exam_type;
    if (patch.app !== undefined) wanted.app = patch.app;
    if (patch.max_score !== undefined) wanted.max_score = patch.max_score;
    if (patch.due_date !== undefined) wanted.due_date = toDate(patch.due_date);
    if (patch.time_limit_minutes !== undefined) wanted.time_limit_minutes = patch.time_limit_minutes;
    if (patch.proctoring !== undefined) wanted.proctoring = patch.proctoring;
    if (patch.ai_policy !== undefined) wanted.ai_policy = patch.ai_policy;
    const changes = Object.fromEntries(
      Object.entries(wanted).filter(([field, value]) => !sameValue(exam.get(field as keyof ExamRow), value)),
    ) as Partial<ExamRow>;
    if (Object.keys(changes).length === 0) return exam;
    await saveExam(tx, exam, changes);
    return exam;
  });
}

/**
 * DELETE: refused with `409 conflict` once anyone has submitted (close the exam instead, so the
 * results stay). Otherwise removes the exam with its assignments, attempts (and their proctoring
 * events and uploads), hidden-tests key and files; files leave the disk once the rows are gone.
 */
export async function deleteExam(tenant: Tenant, id: string, options: { dataDir: string }): Promise<{ id: string; deleted: true }> {
  return tenant.inTransaction(async (tx) => {
    const exam = await findExam(tx, id);
    const submitted = await tx.submissions.count({ where: { exam_id: exam.id } });
    if (submitted > 0) {
      throw new AppError('conflict', `The exam has ${submitted} submission${submitted === 1 ? '' : 's'}; close it instead of deleting it.`);
    }
    const attemptIds = (await tx.attempts.findAll({ attributes: ['id'], where: { exam_id: exam.id } })).map((row) => row.id);
    const files = await tx.files.findAll({
      where: {
        [Op.or]: [{ owner_type: 'exam', owner_id: exam.id }, ...(attemptIds.length > 0 ? [{ owner_type: 'attempt', owner_id: { [Op.in]: attemptIds } }] : [])],
      },
    });
    if (attemptIds.length > 0) await tx.proctoringEvents.destroy({ attempt_id: { [Op.in]: attemptIds } });
    await tx.attempts.destroy({ exam_id: exam.id });
    await tx.examAssignments.destroy({ exam_id: exam.id });
    await tx.examSecrets.destroy({ exam_id: exam.id });
    if (files.length > 0) await tx.files.destroy({ id: { [Op.in]: files.map((file) => file.id) } });
    await tx.exams.destroy({ id: exam.id });
    // After commit: a rollback must not leave rows pointing at files already removed. Sequelize
    // runs after-commit hooks even when the COMMIT itself fails (a serialization failure on
    // PostgreSQL, run again from the start), so the hook first checks that the rows are gone.
    const fileIds = files.map((file) => file.id);
    const paths = files.map((file) => absolutePath(options.dataDir, file));
    if (paths.length > 0) {
      tx.tx.afterCommit(async () => {
        const remaining = await tenant.files.count({ where: { id: { [Op.in]: fileIds } } }).catch(() => fileIds.length);
        if (remaining > 0) return;
        await Promise.all(paths.map((file) => fs.promises.rm(file, { force: true }).catch(() => undefined)));
      });
    }
    return { id: exam.id, deleted: true as const };
  });
}

/**
 * draft → published, mailing every student of the assigned groups and their verified guardians.
 * Publishing a published exam is a no-op; a closed one is `409 conflict`.
 */
export function publishExam(tenant: Tenant, id: string): Promise<ExamRow> {
  return tenant.inTransaction(async (tx) => {
    const exam = await findExam(tx, id);
    if (exam.status === 'published') return exam;
    if (exam.status === 'closed') throw new AppError('conflict', 'A closed exam cannot be published again.');
    await saveExam(tx, exam, { status: 'published', published_at: new Date() });
    await emit(tx, 'exam.published', { exam_id: exam.id });
    await notifyAssigned(tx, exam, await assignedStudentIds(tx, exam.id));
    return exam;
  });
}

/** → closed, from draft or published; closing a closed exam is a no-op. */
export function closeExam(tenant: Tenant, id: string): Promise<ExamRow> {
  return tenant.inTransaction(async (tx) => {
    const exam = await findExam(tx, id);
    if (exam.status === 'closed') return exam;
    await saveExam(tx, exam, { status: 'closed', closed_at: new Date() });
    await emit(tx, 'exam.closed', { exam_id: exam.id });
    return exam;
  });
}
