import { Op, Sequelize, type FindOptions, type WhereOptions } from 'sequelize';
import type { Database } from '../db/index.js';
import type { Page, PageRequest, Tenant, TenantTx } from '../db/tenant.js';
import { AppError, notFound, validationError } from '../errors.js';
import { emit } from '../events/emit.js';
import { parseInput } from '../http/validate.js';
import type { LearnerAuth } from '../http/session-auth.js';
import { z } from '../http/zod.js';
import { newId } from '../ids.js';
import type {
  AlphaActivityRow,
  AlphaBadgeRow,
  AlphaConceptRow,
  AlphaCurriculumRow,
  AlphaEnrollmentRow,
  AlphaMasteryRow,
  AlphaPointsRow,
  BadgeCode,
  CurriculumStatus,
  EnrollmentStatus,
} from '../models/alpha.js';
import type { PersonRow } from '../models/person.js';
import { findInstitution } from './institutions.js';
import { findPerson, personRefWhere, resolveActiveFaculty, resolveStudents } from './people.js';

/**
 * The rules of Alpha Learning, in one place so the API description, the docs and the tests name
 * the same numbers.
 * - Mastery of a concept is an exponential moving average of correctness: each activity moves it
 *   `MASTERY_RATE` of the way toward 1 (correct) or 0 (wrong), from 0 before the first activity:
 *   `m' = m + 0.3 × (target − m)`. Five correct answers in a row from 0 give 0.832.
 * - Points: `CORRECT_POINTS` for a correct answer; `DAILY_TARGET_BONUS` once per enrollment and UTC
 *   day, when that day's minutes on the curriculum first reach the enrollment's daily target.
 * - Streak: consecutive UTC days with at least one activity, ending today, or yesterday while
 *   today has none yet (the streak is alive until today ends); otherwise 0.
 * - Badges are earned once and kept: see BADGES.
 */
export const ALPHA_RULES = {
  MASTERY_RATE: 0.3,
  MASTERED_AT: 0.8,
  CORRECT_POINTS: 10,
  DAILY_TARGET_BONUS: 20,
  AWARD_LIMIT: 100,
} as const;

export const BADGES = {
  first_activity: 'The first practice activity.',
  streak_3: 'Practice on 3 consecutive UTC days.',
  streak_7: 'Practice on 7 consecutive UTC days.',
  mastery_0_8: `A concept reached a mastery of ${ALPHA_RULES.MASTERED_AT}.`,
} as const satisfies Record<BadgeCode, string>;

const DEFAULT_DAILY_TARGET_MINUTES = 30;

/** `YYYY-MM-DD` of the UTC calendar day. */
export const utcDay = (date: Date) => date.toISOString().slice(0, 10);

const dayBefore = (day: string) => utcDay(new Date(Date.parse(`${day}T00:00:00.000Z`) - 86_400_000));

export const nextMastery = (mastery: number, correct: boolean) => mastery + ALPHA_RULES.MASTERY_RATE * ((correct ? 1 : 0) - mastery);

const emptyPage = <T>(request: PageRequest): Page<T> => ({ items: [], page: request.page, limit: request.limit, total: 0, totalPages: 0 });

// ---------------------------------------------------------------------------------------------
// Curricula
// ---------------------------------------------------------------------------------------------

export interface CurriculumWithConcepts {
  curriculum: AlphaCurriculumRow;
  concepts: AlphaConceptRow[];
}

type CurriculumFind = Omit<FindOptions<AlphaCurriculumRow>, 'transaction' | 'where'> & { where?: WhereOptions<AlphaCurriculumRow> };

/**
 * The only way curricula are read on an institution's behalf. Curricula are the one Alpha table
 * outside ScopedRepo: a shared curriculum has `institution_id` null and belongs to every
 * institution at once, which `institution_id = <tenant>` cannot express. So the rule is written
 * here, once: the institution's own curricula and the shared ones, never another institution's.
 */
export function curriculaVisibleTo(tenant: Tenant) {
  const { AlphaCurriculum } = tenant.db.models;
  const visible = (where?: WhereOptions<AlphaCurriculumRow>): WhereOptions<AlphaCurriculumRow> => {
    const own = { [Op.or]: [{ institution_id: null }, { institution_id: tenant.institutionId }] } as WhereOptions<AlphaCurriculumRow>;
    return where ? { [Op.and]: [where, own] } : own;
  };
  return {
    findAll: (options: CurriculumFind = {}) => AlphaCurriculum.findAll({ ...options, where: visible(options.where), transaction: tenant.tx }),
    findById: (id: string) => AlphaCurriculum.findOne({ where: visible({ id }), transaction: tenant.tx }),
    count: (where?: WhereOptions<AlphaCurriculumRow>) => AlphaCurriculum.count({ where: visible(where), transaction: tenant.tx }),
  };
}

/** Concepts of the given curricula, each list in the curriculum's order. Callers pass ids they may see. */
async function conceptsOf(tenant: Pick<Tenant, 'db' | 'tx'>, curriculumIds: readonly string[]): Promise<Map<string, AlphaConceptRow[]>> {
  const byCurriculum = new Map<string, AlphaConceptRow[]>(curriculumIds.map((id) => [id, []]));
  if (curriculumIds.length === 0) return byCurriculum;
  const rows = await tenant.db.models.AlphaConcept.findAll({
    where: { curriculum_id: { [Op.in]: [...curriculumIds] } },
    order: [['curriculum_id', 'ASC'], ['position', 'ASC']],
    transaction: tenant.tx,
  });
  for (const row of rows) byCurriculum.get(row.curriculum_id)?.push(row);
  return byCurriculum;
}

async function withConcepts(tenant: Pick<Tenant, 'db' | 'tx'>, curricula: AlphaCurriculumRow[]): Promise<CurriculumWithConcepts[]> {
  const concepts = await conceptsOf(tenant, curricula.map((row) => row.id));
  return curricula.map((curriculum) => ({ curriculum, concepts: concepts.get(curriculum.id) ?? [] }));
}

/**
 * The operator's view: every curriculum on the appliance, drafts and every institution's included
 * (institutions see only published ones), oldest first.
 */
export async function listAllCurricula(db: Database, status?: AlphaCurriculumRow['status']): Promise<CurriculumWithConcepts[]> {
  const curricula = await db.models.AlphaCurriculum.findAll({ where: status ? { status } : {}, order: [['created_at', 'ASC'], ['id', 'ASC']] });
  return withConcepts({ db, tx: null }, curricula);
}

export interface CurriculumFilter extends PageRequest {
  /** Drafts are never visible to the API, so `draft` always gives an empty page. */
  status?: CurriculumStatus | undefined;
}

/** Published curricula of the institution and shared ones, oldest first. */
export async function listCurricula(tenant: Tenant, filter: CurriculumFilter): Promise<Page<CurriculumWithConcepts>> {
  if (filter.status === 'draft') return emptyPage(filter);
  const curricula = curriculaVisibleTo(tenant);
  const where = { status: 'published' } as const;
  const [total, rows] = await Promise.all([
    curricula.count(where),
    curricula.findAll({ where, order: [['created_at', 'ASC'], ['id', 'ASC']], limit: filter.limit, offset: (filter.page - 1) * filter.limit }),
  ]);
  return { items: await withConcepts(tenant, rows), page: filter.page, limit: filter.limit, total, totalPages: Math.ceil(total / filter.limit) };
}

/** A curriculum a body may name for enrolling: visible and published; anything else is `422` at `curriculum_id`. */
async function findEnrollableCurriculum(tx: TenantTx, id: string): Promise<AlphaCurriculumRow> {
  const curriculum = await curriculaVisibleTo(tx).findById(id);
  if (!curriculum || curriculum.status !== 'published') {
    throw validationError([{ path: 'curriculum_id', message: `"${id}" is not a published curriculum available to this institution.` }]);
  }
  return curriculum;
}

const conceptName = z.string().trim().min(1).max(200);

export const newCurriculumSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000).default(''),
  concepts: z
    .array(conceptName)
    .min(1)
    .max(200)
    .refine((names) => new Set(names.map((name) => name.toLowerCase())).size === names.length, 'Concept names must be distinct.'),
  institution_id: z.string().min(1).nullable().default(null),
  publish: z.boolean().default(false),
});

export type NewCurriculum = z.input<typeof newCurriculumSchema>;

/**
 * A curriculum and its concepts (operator side: the CLI). Without an institution it is shared by
 * every institution. Made as a draft unless `publish`. No event: the catalog has none for curricula,
 * and a shared one has no institution whose stream could carry it.
 */
export async function createCurriculum(db: Database, input: NewCurriculum): Promise<CurriculumWithConcepts> {
  const parsed = parseInput(newCurriculumSchema, input);
  if (parsed.institution_id !== null) await findInstitution(db, parsed.institution_id);
  return db.sequelize.transaction(async (transaction) => {
    const curriculum = await db.models.AlphaCurriculum.create(
      {
        id: newId('cur'),
        institution_id: parsed.institution_id,
        name: parsed.name,
        description: parsed.description,
        status: parsed.publish ? 'published' : 'draft',
      },
      { transaction },
    );
    const concepts = await db.models.AlphaConcept.bulkCreate(
      parsed.concepts.map((name, position) => ({ id: newId('con'), curriculum_id: curriculum.id, name, position })),
      { transaction },
    );
    return { curriculum, concepts };
  });
}

/** Publishes a draft (operator side); publishing a published curriculum is a no-op. */
export async function publishCurriculum(db: Database, id: string): Promise<CurriculumWithConcepts> {
  return db.sequelize.transaction(async (transaction) => {
    const curriculum = await db.models.AlphaCurriculum.findByPk(id, { transaction });
    if (!curriculum) throw notFound('curriculum');
    if (curriculum.status !== 'published') await curriculum.update({ status: 'published' }, { transaction });
    const concepts = await db.models.AlphaConcept.findAll({ where: { curriculum_id: id }, order: [['position', 'ASC']], transaction });
    return { curriculum, concepts };
  });
}

// ---------------------------------------------------------------------------------------------
// Enrollments
// ---------------------------------------------------------------------------------------------

export async function findEnrollment(tenant: Tenant, id: string): Promise<AlphaEnrollmentRow> {
  const enrollment = await tenant.alphaEnrollments.findById(id);
  if (!enrollment) throw notFound('enrollment');
  return enrollment;
}

export interface EnrollmentFilter extends PageRequest {
  student_id?: string | undefined;
  curriculum_id?: string | undefined;
  status?: EnrollmentStatus | undefined;
}

/** Oldest first. An unknown `student_id` (id or login email) gives an empty page, as any filter. */
export async function listEnrollments(tenant: Tenant, filter: EnrollmentFilter): Promise<Page<AlphaEnrollmentRow>> {
  const where: WhereOptions<AlphaEnrollmentRow>[] = [];
  if (filter.student_id !== undefined) {
    const student = await tenant.people.findOne({ attributes: ['id'], where: personRefWhere('student', filter.student_id) });
    if (!student) return emptyPage(filter);
    where.push({ student_id: student.id });
  }
  if (filter.curriculum_id !== undefined) where.push({ curriculum_id: filter.curriculum_id });
  if (filter.status !== undefined) where.push({ status: filter.status });
  return tenant.alphaEnrollments.page(
    { where: where.length > 0 ? { [Op.and]: where } : undefined, order: [['created_at', 'ASC'], ['id', 'ASC']] },
    filter,
  );
}

/** A guide: null clears it; otherwise an active faculty member of this institution, else `422 invalid_faculty`. */
async function resolveGuide(tx: TenantTx, ref: string | null): Promise<string | null> {
  if (ref === null) return null;
  return (await resolveActiveFaculty(tx, ref)).id;
}

export interface NewEnrollments {
  curriculum_id: string;
  student_ids: readonly string[];
  daily_target_minutes?: number | undefined;
  guide_id?: string | null | undefined;
}

export interface EnrollmentsCreated {
  created: AlphaEnrollmentRow[];
  /** Refs as sent that are not students of this institution. */
  rejected: string[];
  /** Internal ids of valid students already enrolled in the curriculum (any status), skipped. */
  alreadyEnrolled: string[];
}

/**
 * Enrolls the valid students who are not enrolled in the curriculum yet, each with its
 * `alpha.enrollment.created`, in one transaction. Checks, in order: the curriculum (visible and
 * published, else `422` at `curriculum_id`), the guide (`invalid_faculty`), the students (the one
 * `student_ids` rule). Everyone already enrolled is not an error: `items` is then empty.
 */
export function createEnrollments(tenant: Tenant, input: NewEnrollments): Promise<EnrollmentsCreated> {
  return tenant.inTransaction(async (tx) => {
    const curriculum = await findEnrollableCurriculum(tx, input.curriculum_id);
    const guideId = await resolveGuide(tx, input.guide_id ?? null);
    const { students, rejected } = await resolveStudents(tx, input.student_ids);
    const existing = await tx.alphaEnrollments.findAll({
      attributes: ['student_id'],
      where: { curriculum_id: curriculum.id, student_id: { [Op.in]: students.map((student) => student.id) } },
    });
    const enrolled = new Set(existing.map((row) => row.student_id));
    const created: AlphaEnrollmentRow[] = [];
    const alreadyEnrolled: string[] = [];
    for (const student of students) {
      if (enrolled.has(student.id)) {
        alreadyEnrolled.push(student.id);
        continue;
      }
      const enrollment = await tx.alphaEnrollments.create({
        id: newId('enr'),
        curriculum_id: curriculum.id,
        student_id: student.id,
        guide_id: guideId,
        daily_target_minutes: input.daily_target_minutes ?? DEFAULT_DAILY_TARGET_MINUTES,
        status: 'active',
      });
      await emit(tx, 'alpha.enrollment.created', { enrollment_id: enrollment.id, student_id: student.id, curriculum_id: curriculum.id });
      created.push(enrollment);
    }
    return { created, rejected, alreadyEnrolled };
  });
}

export interface EnrollmentPatch {
  guide_id?: string | null | undefined;
  daily_target_minutes?: number | undefined;
  status?: EnrollmentStatus | undefined;
}

/**
 * PATCH. Transitions: active ↔ paused, active|paused → completed. A completed enrollment is final:
 * a PATCH that would change anything of it is `409 conflict`; one that restates it is a no-op.
 * Checks: `404`, then the guide (`422 invalid_faculty`), then the state (`409`). No event: the
 * catalog has none for enrollment changes.
 */
export function updateEnrollment(tenant: Tenant, id: string, patch: EnrollmentPatch): Promise<AlphaEnrollmentRow> {
  return tenant.inTransaction(async (tx) => {
    const enrollment = await findEnrollment(tx, id);
    const changes: Partial<Pick<AlphaEnrollmentRow, 'guide_id' | 'daily_target_minutes' | 'status'>> = {};
    if (patch.guide_id !== undefined) {
      const guideId = await resolveGuide(tx, patch.guide_id);
      if (guideId !== enrollment.guide_id) changes.guide_id = guideId;
    }
    if (patch.daily_target_minutes !== undefined && patch.daily_target_minutes !== enrollment.daily_target_minutes) {
      changes.daily_target_minutes = patch.daily_target_minutes;
    }
    if (patch.status !== undefined && patch.status !== enrollment.status) changes.status = patch.status;
    if (Object.keys(changes).length === 0) return enrollment;
    if (enrollment.status === 'completed') {
      throw new AppError('conflict', 'This enrollment is completed; a completed enrollment cannot change.');
    }
    await enrollment.update(changes, { transaction: tx.tx });
    return enrollment;
  });
}

// ---------------------------------------------------------------------------------------------
// Points, streaks, badges
// ---------------------------------------------------------------------------------------------

/** The sum of the student's ledger rows: the one source of a total. */
export async function pointsTotal(tenant: Tenant, studentId: string): Promise<number> {
  const [row] = (await tenant.alphaPoints.findAll({
    attributes: [[Sequelize.fn('COALESCE', Sequelize.fn('SUM', Sequelize.col('points')), 0), 'total']],
    where: { student_id: studentId },
    raw: true,
  })) as unknown as Array<{ total: number | string }>;
  return Number(row?.total ?? 0);
}

/** See ALPHA_RULES: consecutive UTC days with activity, ending today or yesterday. */
export async function streakDays(tenant: Tenant, studentId: string, now = new Date()): Promise<number> {
  const today = utcDay(now);
  const rows = (await tenant.alphaActivities.findAll({
    attributes: ['day'],
    where: { student_id: studentId, day: { [Op.lte]: today } },
    group: ['day'],
    order: [['day', 'DESC']],
    raw: true,
  })) as unknown as Array<{ day: string }>;
  const days = rows.map((row) => row.day);
  let expected = days[0] === today ? today : dayBefore(today);
  let streak = 0;
  for (const day of days) {
    if (day !== expected) break;
    streak += 1;
    expected = dayBefore(expected);
  }
  return streak;
}

export async function badgesOf(tenant: Tenant, studentId: string): Promise<AlphaBadgeRow[]> {
  return tenant.alphaBadges.findAll({ where: { student_id: studentId }, order: [['awarded_at', 'ASC'], ['code', 'ASC']] });
}

/**
 * Writes a ledger row with the running total and its `alpha.points.awarded`, in the caller's
 * transaction. `created_at` is strictly increasing per student (as events are per institution), so
 * "newest first" is the order the rows were written, even for two rows of one activity.
 */
async function addLedgerRow(
  tx: TenantTx,
  row: { student_id: string; points: number; note: string; source: AlphaPointsRow['source']; ref: string; balance_after: number; created_at: Date },
): Promise<AlphaPointsRow> {
  const newest = await tx.alphaPoints.findOne({ attributes: ['created_at'], where: { student_id: row.student_id }, order: [['created_at', 'DESC']] });
  const createdAt = new Date(Math.max(row.created_at.getTime(), newest ? newest.created_at.getTime() + 1 : 0));
  const entry = await tx.alphaPoints.create({ id: newId('pts'), ...row, created_at: createdAt });
  await emit(tx, 'alpha.points.awarded', { student_id: row.student_id, points: row.points, ref: row.ref });
  return entry;
}

export interface PointsAward {
  points: number;
  note: string;
  ref: string;
}

export interface AwardResult {
  entry: AlphaPointsRow;
  replayed: boolean;
}

/**
 * POST /alpha/students/{id}/points, idempotent on `ref` within the institution, as merit credits
 * are: the same ref with the same student, points and note answers the first award with
 * `replayed: true` and adds nothing; with anything different it is `409 conflict`. A negative award
 * that would take the total below 0 is `409 conflict` and uses up nothing (the ref stays free).
 * The transaction reads and writes under SQLite's write lock, so parallel identical calls add one row.
 */
export function awardPoints(tenant: Tenant, studentRef: string, award: PointsAward, now = new Date()): Promise<AwardResult> {
  return tenant.inTransaction(async (tx) => {
    const student = await findPerson(tx, 'student', studentRef);
    const earlier = await tx.alphaPoints.findOne({ where: { source: 'award', ref: award.ref } });
    if (earlier) {
      const same = earlier.student_id === student.id && earlier.points === award.points && earlier.note === award.note;
      if (!same) throw new AppError('conflict', `The ref "${award.ref}" was already used for a different award.`);
      return { entry: earlier, replayed: true };
    }
    const total = await pointsTotal(tx, student.id);
    if (total + award.points < 0) {
      throw new AppError('conflict', `The student has ${total} points; awarding ${award.points} would take the total below 0.`);
    }
    const entry = await addLedgerRow(tx, {
      student_id: student.id,
      points: award.points,
      note: award.note,
      source: 'award',
      ref: award.ref,
      balance_after: total + award.points,
      created_at: now,
    });
    return { entry, replayed: false };
  });
}

export interface PointsSummary {
  total: number;
  streakDays: number;
  badges: AlphaBadgeRow[];
  /** Newest first. */
  ledger: AlphaPointsRow[];
}

export async function getStudentPoints(tenant: Tenant, studentRef: string, limit: number, now = new Date()): Promise<PointsSummary> {
  const student = await findPerson(tenant, 'student', studentRef);
  const [total, streak, badges, ledger] = await Promise.all([
    pointsTotal(tenant, student.id),
    streakDays(tenant, student.id, now),
    badgesOf(tenant, student.id),
    tenant.alphaPoints.findAll({ where: { student_id: student.id }, order: [['created_at', 'DESC'], ['id', 'DESC']], limit }),
  ]);
  return { total, streakDays: streak, badges, ledger };
}

export interface LeaderboardEntry {
  rank: number;
  student: PersonRow;
  points: number;
}

/**
 * Students with a positive total, highest first; equal totals share a rank and the next rank skips
 * (standard competition ranking: 1, 2, 2, 4), and are listed by name. The first `limit` entries.
 */
export async function leaderboard(tenant: Tenant, limit: number): Promise<LeaderboardEntry[]> {
  const totals = (await tenant.alphaPoints.findAll({
    attributes: ['student_id', [Sequelize.fn('SUM', Sequelize.col('points')), 'total']],
    group: ['student_id'],
    raw: true,
  })) as unknown as Array<{ student_id: string; total: number | string }>;
  const positive = totals.map((row) => ({ studentId: row.student_id, points: Number(row.total) })).filter((row) => row.points > 0);
  if (positive.length === 0) return [];
  const students = await tenant.people.findAll({ where: { role: 'student', id: { [Op.in]: positive.map((row) => row.studentId) } } });
  const byId = new Map(students.map((student) => [student.id, student]));
  const ranked = positive
    .flatMap((row) => {
      const student = byId.get(row.studentId);
      return student ? [{ student, points: row.points }] : [];
    })
    .sort((a, b) => b.points - a.points || a.student.full_name.localeCompare(b.student.full_name) || (a.student.id < b.student.id ? -1 : 1));
  const entries: LeaderboardEntry[] = [];
  ranked.forEach((row, index) => {
    const previous = entries[index - 1];
    const rank = previous && previous.points === row.points ? previous.rank : index + 1;
    entries.push({ rank, student: row.student, points: row.points });
  });
  return entries.slice(0, limit);
}

// ---------------------------------------------------------------------------------------------
// Mastery and the student drill-down
// ---------------------------------------------------------------------------------------------

export interface ConceptMastery {
  curriculumId: string;
  concept: AlphaConceptRow;
  /** Null before the first activity on the concept. */
  row: AlphaMasteryRow | null;
}

async function enrollmentsOf(tenant: Tenant, studentId: string): Promise<AlphaEnrollmentRow[]> {
  return tenant.alphaEnrollments.findAll({ where: { student_id: studentId }, order: [['created_at', 'ASC'], ['id', 'ASC']] });
}

/** Every concept of the curricula the student is enrolled in (any status), practised or not, in enrollment then concept order. */
async function conceptMastery(tenant: Tenant, studentId: string, enrollments: AlphaEnrollmentRow[]): Promise<ConceptMastery[]> {
  const curriculumIds = enrollments.map((row) => row.curriculum_id);
  const [concepts, rows] = await Promise.all([
    conceptsOf(tenant, curriculumIds),
    tenant.alphaMastery.findAll({ where: { student_id: studentId } }),
  ]);
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

// ---------------------------------------------------------------------------------------------
// The learner side: POST /app/alpha/activity
// ---------------------------------------------------------------------------------------------

export interface ActivityInput {
  curriculum_id: string;
  concept_id: string;
  correct: boolean;
  minutes: number;
}

export interface ActivityResult {
  mastery: ConceptMastery & { row: AlphaMasteryRow };
  pointsAwarded: number;
  total: number;
  streakDays: number;
  badges: AlphaBadgeRow[];
  newBadges: BadgeCode[];
}

/** Alpha Learning is for students; a faculty member's learner session is `403 forbidden`. */
function alphaStudentOf(learner: LearnerAuth): PersonRow {
  if (learner.person.role !== 'student') throw new AppError('forbidden', 'Only students practise in Alpha Learning; this session belongs to a faculty member.');
  return learner.person;
}

async function minutesOn(tx: TenantTx, enrollmentId: string, day: string): Promise<number> {
  const [row] = (await tx.alphaActivities.findAll({
    attributes: [[Sequelize.fn('COALESCE', Sequelize.fn('SUM', Sequelize.col('minutes')), 0), 'minutes']],
    where: { enrollment_id: enrollmentId, day },
    raw: true,
  })) as unknown as Array<{ minutes: number | string }>;
  return Number(row?.minutes ?? 0);
}

/**
 * One practice activity, all in one transaction: the activity row, the concept's mastery, the
 * points it earns (ledger rows of source `activity`, each with `alpha.points.awarded`), the streak
 * and any badge earned. Checks, in order: the curriculum is visible (`404 not_found`), the concept
 * belongs to it (`422` at `concept_id`), the student has an `active` enrollment in it (`409 conflict`).
 */
export function recordActivity(learner: LearnerAuth, input: ActivityInput, now = new Date()): Promise<ActivityResult> {
  const student = alphaStudentOf(learner);
  return learner.tenant.inTransaction(async (tx) => {
    const curriculum = await curriculaVisibleTo(tx).findById(input.curriculum_id);
    if (!curriculum) throw notFound('curriculum');
    const concept = await tx.db.models.AlphaConcept.findOne({ where: { id: input.concept_id, curriculum_id: curriculum.id }, transaction: tx.tx });
    if (!concept) throw validationError([{ path: 'concept_id', message: `"${input.concept_id}" is not a concept of this curriculum.` }]);
    const enrollment = await tx.alphaEnrollments.findOne({ where: { student_id: student.id, curriculum_id: curriculum.id } });
    if (!enrollment) throw new AppError('conflict', 'You are not enrolled in this curriculum.');
    if (enrollment.status !== 'active') throw new AppError('conflict', `Your enrollment in this curriculum is ${enrollment.status}.`);

    const day = utcDay(now);
    const minutesBefore = await minutesOn(tx, enrollment.id, day);

    // Mastery: see ALPHA_RULES.
    const previous = await tx.alphaMastery.findOne({ where: { student_id: student.id, concept_id: concept.id } });
    const mastery = nextMastery(previous?.mastery ?? 0, input.correct);
    const counts = { attempts: (previous?.attempts ?? 0) + 1, correct: (previous?.correct ?? 0) + (input.correct ? 1 : 0) };
    let masteryRow: AlphaMasteryRow;
    if (previous) {
      await previous.update({ mastery, ...counts, last_activity_at: now }, { transaction: tx.tx });
      masteryRow = previous;
    } else {
      masteryRow = await tx.alphaMastery.create({
        student_id: student.id,
        concept_id: concept.id,
        curriculum_id: curriculum.id,
        mastery,
        ...counts,
        last_activity_at: now,
      });
    }
    const activity: AlphaActivityRow = await tx.alphaActivities.create({
      id: newId('act'),
      student_id: student.id,
      enrollment_id: enrollment.id,
      curriculum_id: curriculum.id,
      concept_id: concept.id,
      correct: input.correct,
      minutes: input.minutes,
      day,
      mastery_after: mastery,
      occurred_at: now,
    });

    // Points: the refs make each rule pay once (unique per institution and source).
    let total = await pointsTotal(tx, student.id);
    let pointsAwarded = 0;
    const pay = async (points: number, ref: string, note: string) => {
      total += points;
      pointsAwarded += points;
      await addLedgerRow(tx, { student_id: student.id, points, note, source: 'activity', ref, balance_after: total, created_at: now });
    };
    if (input.correct) await pay(ALPHA_RULES.CORRECT_POINTS, activity.id, `Correct answer: ${concept.name}`);
    const target = enrollment.daily_target_minutes;
    const bonusRef = `daily_target:${enrollment.id}:${day}`;
    if (minutesBefore < target && minutesBefore + input.minutes >= target) {
      const paid = await tx.alphaPoints.findOne({ attributes: ['id'], where: { source: 'activity', ref: bonusRef } });
      if (!paid) await pay(ALPHA_RULES.DAILY_TARGET_BONUS, bonusRef, `Daily target of ${target} minutes reached: ${curriculum.name}`);
    }

    // Streak and badges (earned once, kept).
    const streak = await streakDays(tx, student.id, now);
    const deserved: BadgeCode[] = ['first_activity'];
    if (streak >= 3) deserved.push('streak_3');
    if (streak >= 7) deserved.push('streak_7');
    if (mastery >= ALPHA_RULES.MASTERED_AT) deserved.push('mastery_0_8');
    const held = new Set((await badgesOf(tx, student.id)).map((badge) => badge.code));
    const newBadges = deserved.filter((code) => !held.has(code));
    for (const code of newBadges) await tx.alphaBadges.create({ student_id: student.id, code, awarded_at: now });

    return {
      mastery: { curriculumId: curriculum.id, concept, row: masteryRow },
      pointsAwarded,
      total,
      streakDays: streak,
      badges: await badgesOf(tx, student.id),
      newBadges,
    };
  });
}
