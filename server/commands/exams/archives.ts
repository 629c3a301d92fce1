import { Op } from 'sequelize';
import type { Database } from '../../db/index.js';
import { Tenant } from '../../db/tenant.js';
import { AppError } from '../../errors.js';
import type { ExamRow } from '../../models/exam.js';
import type { StoredFileRow } from '../../models/stored-file.js';
import { openAttemptExam, SUBMIT_GRACE_MS } from '../learner/learner.js';

/*
 * A coding exam's archives (starter, sample tests, encrypted hidden tests) as the people who need
 * them receive them: signed links made per request (docs/decisions/coding-exam-archives.md).
 */

type SpecRef = string | { ref?: unknown } | undefined;
const refOf = (value: SpecRef): string | null =>
  typeof value === 'string' ? value : value && typeof value === 'object' && typeof value.ref === 'string' ? value.ref : null;

/** The refs a `code_spec` names, in the order a student needs them: starter, sample tests, hidden tests. */
function namedRefs(spec: ExamRow['code_spec']): string[] {
  if (!spec) return [];
  const hidden = spec.hidden_tests as { file?: unknown } | undefined;
  const refs = [refOf(spec.starter as SpecRef), refOf(spec.sample_tests as SpecRef), typeof hidden?.file === 'string' ? hidden.file : null];
  return refs.filter((ref): ref is string => ref !== null);
}

/**
 * The archives each exam's `code_spec` names, in one query for all the exams. An upload the spec
 * does not (or no longer) name is left out: a student works from the files the teacher chose.
 */
export async function examArchives(tenant: Tenant, exams: ExamRow[]): Promise<Map<string, StoredFileRow[]>> {
  const wanted = new Map(exams.map((exam) => [exam.id, namedRefs(exam.code_spec)]));
  const refs = [...wanted.values()].flat();
  const archives = new Map<string, StoredFileRow[]>(exams.map((exam) => [exam.id, []]));
  if (refs.length === 0) return archives;
  const rows = await tenant.files.findAll({
    where: { id: { [Op.in]: [...new Set(refs)] }, owner_type: 'exam', owner_id: { [Op.in]: [...wanted.keys()] } },
  });
  const byId = new Map(rows.map((row) => [row.id, row]));
  for (const [examId, examRefs] of wanted) {
    for (const ref of examRefs) {
      const row = byId.get(ref);
      if (row?.owner_id === examId) archives.get(examId)!.push(row);
    }
  }
  return archives;
}

/**
 * Whether a student's signed archive link may open `file` now: it is an archive of an exam the
 * student has an open attempt of (one that still takes work, within the submit grace). Any other
 * case answers false, and the download route says `404 not_found` without telling which.
 */
export async function studentMayOpenArchive(db: Database, file: StoredFileRow, studentId: string, now = new Date()): Promise<boolean> {
  if (file.owner_type !== 'exam') return false;
  const tenant = new Tenant(db, file.institution_id);
  const student = await tenant.people.findOne({ where: { id: studentId, role: 'student' } });
  if (student?.status !== 'active') return false;
  const attempts = await tenant.attempts.findAll({ where: { exam_id: file.owner_id, student_id: student.id } });
  for (const attempt of attempts) {
    try {
      await openAttemptExam(tenant, student, attempt, now, SUBMIT_GRACE_MS);
      return true;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
    }
  }
  return false;
}
