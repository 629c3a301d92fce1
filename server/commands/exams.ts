import { sortedOrder, type OrderItem } from '../db/sort.js';
import type { ListSort } from '../validation/sort.js';
import fs from 'node:fs';
import { Op, Sequelize, type WhereOptions } from 'sequelize';
import type { Tenant, TenantTx } from '../db/tenant.js';
import type { Page, PageRequest } from '../db/paging.js';
import { AppError, notFound } from '../errors.js';
import { emit } from '../events/emit.js';
import { absolutePath } from '../files/storage.js';
import { newId } from '../ids.js';
import type { ExamApp, ExamRow, ExamStatus, ExamType } from '../models/exam.js';
import type { SubmissionRow, SubmissionStatus } from '../models/submission.js';
import { validateCodeSpec } from './coding-exams.js';
import {
  assignedStudentIds,
  assignmentsOf,
  createAssignments,
  notifyAssigned,
  resolveGroups,
  studentsOfGroups,
  type ExamAssignmentView,
} from './exam-audience.js';
import { escapeLike } from './groups.js';
import { findPerson, personRefWhere, resolveActiveFaculty } from './people.js';

type JsonObject = Record<string, unknown>;
/** A submission that counts: every status but `voided`. */
export type LiveSubmissionStatus = Exclude<SubmissionStatus, 'voided'>;

export async function findExam(tenant: Tenant, id: string): Promise<ExamRow> {
  const exam = await tenant.exams.findById(id);
  if (!exam) throw notFound('exam');
  return exam;
}

const emptyPage = <T>(request: PageRequest): Page<T> => ({ items: [], page: request.page, limit: request.limit, total: 0, totalPages: 0 });

/** Assignments change what the single GET shows, so they move `updated_at` too (for `updated_since`). */
export async function saveExam(tx: TenantTx, exam: ExamRow, changes: Partial<ExamRow> = {}): Promise<void> {
  exam.set(changes);
  exam.changed('updated_at', true);
  await exam.save({ transaction: tx.tx });
}

/** Case-insensitive substring of the title, as the groups' `q` (SQLite's lower() folds ASCII only). */
function titleContains(tenant: Tenant, text: string): WhereOptions {
  const pattern = tenant.sqlString(`%${escapeLike(text)}%`);
  return Sequelize.where(Sequelize.fn('lower', Sequelize.col('title')), Op.like, Sequelize.literal(`lower(${pattern}) ESCAPE '\\'`));
}

export interface ExamFilter extends PageRequest {
  app?: ExamApp;
  status?: ExamStatus;
  faculty_id?: string;
  exam_type?: ExamType;
  q?: string;
  /** ISO timestamp: only exams updated strictly after it. */
  updated_since?: string;
  sort?: ListSort<'title' | 'due_date' | 'created_at'>;
}

const EXAM_ORDER: OrderItem[] = [
  ['created_at', 'ASC'],
  ['id', 'ASC'],
];

export async function listExams(tenant: Tenant, filter: ExamFilter): Promise<Page<ExamRow>> {
  const where: WhereOptions[] = [];
  if (filter.faculty_id !== undefined) {
    const owner = await tenant.people.findOne({ attributes: ['id'], where: personRefWhere('faculty', filter.faculty_id) });
    // An unknown teacher owns nothing: an empty page, not an error, as for any filter.
    if (!owner) return emptyPage(filter);
    where.push({ faculty_id: owner.id });
  }
  if (filter.app) where.push({ app: filter.app });
  if (filter.status) where.push({ status: filter.status });
  if (filter.exam_type) where.push({ exam_type: filter.exam_type });
  if (filter.q) where.push(titleContains(tenant, filter.q));
  if (filter.updated_since) where.push({ updated_at: { [Op.gt]: new Date(filter.updated_since) } });
  const order = sortedOrder(filter.sort, { title: 'title', due_date: 'due_date', created_at: 'created_at' }, EXAM_ORDER);
  return tenant.exams.page({ where: where.length > 0 ? { [Op.and]: where } : undefined, order }, filter);
}

/** GET /faculty/{id}/exams: every exam the teacher owns, drafts included. */
export async function listFacultyExams(tenant: Tenant, facultyRef: string, request: PageRequest): Promise<Page<ExamRow>> {
  const teacher = await findPerson(tenant, 'faculty', facultyRef);
  return tenant.exams.page({ where: { faculty_id: teacher.id }, order: EXAM_ORDER }, request);
}

export interface ExamStats {
  assigned_students: number;
  attempts: number;
  submissions: number;
  graded: number;
}

export interface ExamDetail {
  exam: ExamRow;
  groups: ExamAssignmentView[];
  stats: ExamStats;
}

export async function getExamDetail(tenant: Tenant, id: string): Promise<ExamDetail> {
  const exam = await findExam(tenant, id);
  const groups = await assignmentsOf(tenant, exam.id);
  const [students, attempts, submissions, graded] = await Promise.all([
    studentsOfGroups(
      tenant,
      groups.map((group) => group.group_id),
    ),
    tenant.attempts.count({ where: { exam_id: exam.id } }),
    tenant.submissions.count({ where: { exam_id: exam.id, status: { [Op.ne]: 'voided' } } }),
    tenant.submissions.count({ where: { exam_id: exam.id, status: 'graded' } }),
  ]);
  return { exam, groups, stats: { assigned_students: students.size, attempts, submissions, graded } };
}

/** The student's latest submission per exam that is not voided (by `submitted_at`, then creation). */
export async function latestLiveSubmissions(tenant: Tenant, where: WhereOptions<SubmissionRow>): Promise<SubmissionRow[]> {
  const rows = await tenant.submissions.findAll({
    where: { [Op.and]: [where, { status: { [Op.ne]: 'voided' } }] },
    order: [
      ['submitted_at', 'ASC'],
      ['created_at', 'ASC'],
      ['id', 'ASC'],
    ],
  });
  const latest = new Map<string, SubmissionRow>();
  for (const row of rows) latest.set(`${row.exam_id}/${row.student_id}`, row);
  return [...latest.values()];
}

export interface StudentExam {
  exam: ExamRow;
  submission: { id: string; status: LiveSubmissionStatus; score: number | null } | null;
}

/**
 * GET /students/{id}/exams: the published and closed exams assigned to the student's groups
 * (drafts are not the student's business yet), each with their latest submission that is not voided.
 */
export async function listStudentExams(tenant: Tenant, studentRef: string, request: PageRequest): Promise<Page<StudentExam>> {
  const student = await findPerson(tenant, 'student', studentRef);
  const memberships = await tenant.groupMembers.findAll({ attributes: ['group_id'], where: { student_id: student.id } });
  if (memberships.length === 0) return emptyPage(request);
  const assignments = await tenant.examAssignments.findAll({
    attributes: ['exam_id'],
    where: { group_id: { [Op.in]: memberships.map((row) => row.group_id) } },
  });
  const examIds = [...new Set(assignments.map((row) => row.exam_id))];
  if (examIds.length === 0) return emptyPage(request);
  const page = await tenant.exams.page({ where: { id: { [Op.in]: examIds }, status: { [Op.in]: ['published', 'closed'] } }, order: EXAM_ORDER }, request);
  const submissions = await latestLiveSubmissions(tenant, { student_id: student.id, exam_id: { [Op.in]: page.items.map((exam) => exam.id) } });
  const byExam = new Map(submissions.map((row) => [row.exam_id, row]));
  return {
    ...page,
    items: page.items.map((exam) => {
      const submission = byExam.get(exam.id);
      return {
        exam,
        submission: submission ? { id: submission.id, status: submission.status as LiveSubmissionStatus, score: submission.score } : null,
      };
    }),
  };
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
