import { sortedOrder, type OrderItem } from '../../db/sort.js';
import type { ListSort } from '../../validation/sort.js';
import { Op, Sequelize, type WhereOptions } from 'sequelize';
import type { Tenant } from '../../db/tenant.js';
import type { Page, PageRequest } from '../../db/paging.js';
import type { ExamApp, ExamRow, ExamStatus, ExamType } from '../../models/exam.js';
import type { SubmissionRow } from '../../models/submission.js';
import { assignmentsOf, studentsOfGroups, type ExamAssignmentView } from './audience.js';
import { escapeLike } from '../people/groups.js';
import { findPerson, personRefWhere } from '../people/people.js';
import { type LiveSubmissionStatus, findExam } from './exams.js';

const emptyPage = <T>(request: PageRequest): Page<T> => ({ items: [], page: request.page, limit: request.limit, total: 0, totalPages: 0 });
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
