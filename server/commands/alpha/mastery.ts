import type { Tenant } from '../../db/tenant.js';
import type { AlphaConceptRow, AlphaEnrollmentRow, AlphaMasteryRow } from '../../models/alpha.js';
import type { PersonRow } from '../../models/person.js';
import { findPerson } from '../people/people.js';
import { conceptsOf } from './curricula.js';
import { pointsTotal, streakDays } from './points.js';
import { ALPHA_RULES } from './rules.js';

export interface ConceptMastery {
  curriculumId: string;
  concept: AlphaConceptRow;
  /** Null before the first activity on the concept. */
  row: AlphaMasteryRow | null;
}

async function enrollmentsOf(tenant: Tenant, studentId: string): Promise<AlphaEnrollmentRow[]> {
  return tenant.alphaEnrollments.findAll({
    where: { student_id: studentId },
    order: [
      ['created_at', 'ASC'],
      ['id', 'ASC'],
    ],
  });
}

/** Every concept of the curricula the student is enrolled in (any status), practised or not, in enrollment then concept order. */
async function conceptMastery(tenant: Tenant, studentId: string, enrollments: AlphaEnrollmentRow[]): Promise<ConceptMastery[]> {
  const curriculumIds = enrollments.map((row) => row.curriculum_id);
  const [concepts, rows] = await Promise.all([conceptsOf(tenant, curriculumIds), tenant.alphaMastery.findAll({ where: { student_id: studentId } })]);
  const byConcept = new Map(rows.map((row) => [row.concept_id, row]));
  return curriculumIds.flatMap((curriculumId) =>
    (concepts.get(curriculumId) ?? []).map((concept) => ({ curriculumId, concept, row: byConcept.get(concept.id) ?? null })),
  );
}

export async function getStudentMastery(tenant: Tenant, studentRef: string, curriculumId?: string): Promise<ConceptMastery[]> {
  const student = await findPerson(tenant, 'student', studentRef);
  const enrollments = (await enrollmentsOf(tenant, student.id)).filter((row) => curriculumId === undefined || row.curriculum_id === curriculumId);
  return conceptMastery(tenant, student.id, enrollments);
}

export interface MasteryCounts {
  concepts_total: number;
  concepts_practiced: number;
  concepts_mastered: number;
  /** Mean over every concept, unpractised ones counting 0; null without concepts. */
  average_mastery: number | null;
}

export interface MasterySummary extends MasteryCounts {
  curricula: Array<MasteryCounts & { curriculum_id: string }>;
}

const roundMastery = (value: number) => Math.round(value * 10_000) / 10_000;

function countMastery(items: ConceptMastery[]): MasteryCounts {
  const sum = items.reduce((acc, item) => acc + (item.row?.mastery ?? 0), 0);
  return {
    concepts_total: items.length,
    concepts_practiced: items.filter((item) => item.row).length,
    concepts_mastered: items.filter((item) => (item.row?.mastery ?? 0) >= ALPHA_RULES.MASTERED_AT).length,
    average_mastery: items.length === 0 ? null : roundMastery(sum / items.length),
  };
}

export interface StudentDrillDown {
  student: PersonRow;
  enrollments: AlphaEnrollmentRow[];
  pointsTotal: number;
  streakDays: number;
  masterySummary: MasterySummary;
}

export async function getStudentDrillDown(tenant: Tenant, studentRef: string, now = new Date()): Promise<StudentDrillDown> {
  const student = await findPerson(tenant, 'student', studentRef);
  const enrollments = await enrollmentsOf(tenant, student.id);
  const [total, streak, mastery] = await Promise.all([
    pointsTotal(tenant, student.id),
    streakDays(tenant, student.id, now),
    conceptMastery(tenant, student.id, enrollments),
  ]);
  const curricula = enrollments.map((enrollment) => ({
    curriculum_id: enrollment.curriculum_id,
    ...countMastery(mastery.filter((item) => item.curriculumId === enrollment.curriculum_id)),
  }));
  return { student, enrollments, pointsTotal: total, streakDays: streak, masterySummary: { ...countMastery(mastery), curricula } };
}
