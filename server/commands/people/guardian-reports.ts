import { Op, Sequelize, UniqueConstraintError, type WhereOptions } from 'sequelize';
import type { Database } from '../../db/index.js';
import { Tenant } from '../../db/tenant.js';
import { type Page, type PageRequest } from '../../db/paging.js';
import { newId } from '../../ids.js';
import { renderWeeklyReportHtml, renderWeeklyReportText } from '../../mail/guardian-report.js';
import { queueMail } from '../../mail/outbox.js';
import type { GuardianReportRow, LicenseSummary, ReportAlpha, ReportSubmission, ReportUpcomingExam, WeeklySummary } from '../../models/guardian.js';
import type { PersonRow } from '../../models/person.js';
import { getStudentDrillDown } from '../alpha/mastery.js';
import { givenName } from '../../mail/names.js';
import { studentFilter } from './guardians.js';
import { findPerson } from './people.js';
import { findInstitution } from '../institutions/institutions.js';
import { DAY_MS } from './licenses.js';

// Weekly guardian reports: what a verified guardian is told about a student each week, stored as
// the report's `summary` (so the API, the portal and the mail show the same thing) and mailed.

export interface ReportWeek {
  /** Monday 00:00 UTC, inclusive. */
  from: Date;
  /** The next Monday 00:00 UTC, exclusive. */
  to: Date;
  /** Monday, `YYYY-MM-DD`. */
  start: string;
  /** Sunday, `YYYY-MM-DD`. */
  end: string;
}

/** Exams due this long after the report is made are listed as upcoming. */
export const UPCOMING_WINDOW_MS = 7 * DAY_MS;

const dateOnly = (date: Date) => date.toISOString().slice(0, 10);
const inWeek = (week: ReportWeek) => ({ [Op.gte]: week.from, [Op.lt]: week.to });

/** The Monday-to-Sunday (UTC) week that ended most recently before `now`'s week began. */
export function reportedWeek(now: Date): ReportWeek {
  const daysSinceMonday = (now.getUTCDay() + 6) % 7;
  const thisMonday = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - daysSinceMonday);
  const from = new Date(thisMonday - 7 * DAY_MS);
  return { from, to: new Date(thisMonday), start: dateOnly(from), end: dateOnly(new Date(thisMonday - DAY_MS)) };
}

async function licenseSection(tenant: Tenant, student: PersonRow, now: Date): Promise<LicenseSummary> {
  const license = await tenant.licenses.findOne({ where: { user_id: student.id }, order: [['created_at', 'DESC']] });
  if (!license) return { status: 'none', expires_at: null };
  const status = license.status === 'active' && license.expires_at.getTime() <= now.getTime() ? 'expired' : license.status;
  return { status, expires_at: license.expires_at.toISOString() };
}

async function groupIdsOf(tenant: Tenant, student: PersonRow): Promise<string[]> {
  const memberships = await tenant.groupMembers.findAll({ attributes: ['group_id'], where: { student_id: student.id } });
  return memberships.map((membership) => membership.group_id);
}

async function groupsSection(tenant: Tenant, groupIds: string[]): Promise<string[]> {
  if (groupIds.length === 0) return [];
  const groups = await tenant.groups.findAll({ attributes: ['name'], where: { id: { [Op.in]: groupIds } }, order: [['name', 'ASC']] });
  return groups.map((group) => group.name);
}

async function activitySection(tenant: Tenant, student: PersonRow, week: ReportWeek): Promise<WeeklySummary['activity']> {
  const events = await tenant.events.findAll({ attributes: ['type'], where: { created_at: inWeek(week), data: { student_id: student.id } } });
  const byType: Record<string, number> = {};
  for (const event of events) byType[event.type] = (byType[event.type] ?? 0) + 1;
  return { events: events.length, by_type: Object.fromEntries(Object.entries(byType).sort(([a], [b]) => a.localeCompare(b))) };
}

/** Submissions handed in or graded during the week, oldest hand-in first. */
async function submissionsSection(tenant: Tenant, student: PersonRow, week: ReportWeek): Promise<ReportSubmission[]> {
  const rows = await tenant.submissions.findAll({
    attributes: ['id', 'exam_id', 'status', 'score', 'feedback', 'submitted_at', 'graded_at'],
    where: { student_id: student.id, [Op.or]: [{ submitted_at: inWeek(week) }, { graded_at: inWeek(week) }] },
    order: [
      ['submitted_at', 'ASC'],
      ['id', 'ASC'],
    ],
  });
  if (rows.length === 0) return [];
  const exams = await tenant.exams.findAll({
    attributes: ['id', 'title', 'max_score'],
    where: { id: { [Op.in]: [...new Set(rows.map((row) => row.exam_id))] } },
  });
  const byId = new Map(exams.map((exam) => [exam.id, exam]));
  return rows.map((row) => ({
    exam_id: row.exam_id,
    exam_title: byId.get(row.exam_id)?.title ?? 'Deleted exam',
    status: row.status,
    score: row.score,
    max_score: byId.get(row.exam_id)?.max_score ?? null,
    has_feedback: Boolean(row.feedback?.trim()),
    submitted_at: row.submitted_at.toISOString(),
    graded_at: row.graded_at ? row.graded_at.toISOString() : null,
  }));
}

/** Published exams of the student's groups due in the 7 days after `now` that the student has not handed in (voided attempts do not count). */
async function upcomingSection(tenant: Tenant, student: PersonRow, groupIds: string[], now: Date): Promise<ReportUpcomingExam[]> {
  if (groupIds.length === 0) return [];
  const assignments = await tenant.examAssignments.findAll({ attributes: ['exam_id'], where: { group_id: { [Op.in]: groupIds } } });
  if (assignments.length === 0) return [];
  const exams = await tenant.exams.findAll({
    attributes: ['id', 'title', 'due_date', 'max_score'],
    where: {
      id: { [Op.in]: [...new Set(assignments.map((row) => row.exam_id))] },
      status: 'published',
      due_date: { [Op.gte]: now, [Op.lt]: new Date(now.getTime() + UPCOMING_WINDOW_MS) },
    },
    order: [
      ['due_date', 'ASC'],
      ['id', 'ASC'],
    ],
  });
  if (exams.length === 0) return [];
  const handedIn = await tenant.submissions.findAll({
    attributes: ['exam_id'],
    where: { student_id: student.id, exam_id: { [Op.in]: exams.map((exam) => exam.id) }, status: { [Op.ne]: 'voided' } },
  });
  const done = new Set(handedIn.map((row) => row.exam_id));
  return exams
    .filter((exam) => !done.has(exam.id))
    .map((exam) => ({ exam_id: exam.id, exam_title: exam.title, due_date: exam.due_date!.toISOString(), max_score: exam.max_score }));
}

/** `SUM(column)` of the rows `where` selects, 0 for none. */
async function sumOf(
  repo: Pick<Tenant['alphaActivities'], 'findAll'> | Pick<Tenant['alphaPoints'], 'findAll'>,
  column: string,
  where: WhereOptions,
): Promise<number> {
  const rows = (await repo.findAll({
    attributes: [[Sequelize.fn('COALESCE', Sequelize.fn('SUM', Sequelize.col(column)), 0), 'total']],
    where,
    raw: true,
  })) as unknown as Array<{ total: number | string }>;
  return Number(rows[0]?.total ?? 0);
}

async function alphaSection(tenant: Tenant, student: PersonRow, week: ReportWeek, now: Date): Promise<ReportAlpha> {
  const weekDays = { [Op.gte]: week.start, [Op.lte]: week.end };
  const [minutes, activities, earned, total, drillDown] = await Promise.all([
    sumOf(tenant.alphaActivities, 'minutes', { student_id: student.id, day: weekDays }),
    tenant.alphaActivities.count({ where: { student_id: student.id, day: weekDays } }),
    sumOf(tenant.alphaPoints, 'points', { student_id: student.id, created_at: inWeek(week) }),
    sumOf(tenant.alphaPoints, 'points', { student_id: student.id, created_at: { [Op.lt]: week.to } }),
    getStudentDrillDown(tenant, student.id, now),
  ]);
  const ids = drillDown.masterySummary.curricula.map((item) => item.curriculum_id);
  const names = new Map(
    (ids.length ? await tenant.alphaCurricula.findAll({ attributes: ['id', 'name'], where: { id: { [Op.in]: ids } } }) : []).map((row) => [row.id, row.name]),
  );
  return {
    minutes,
    activities,
    points_earned: earned,
    points_total: total,
    curricula: drillDown.masterySummary.curricula.map((item) => ({
      curriculum_id: item.curriculum_id,
      name: names.get(item.curriculum_id) ?? item.curriculum_id,
      concepts_total: item.concepts_total,
      concepts_mastered: item.concepts_mastered,
      average_mastery: item.average_mastery,
    })),
  };
}

/** The report's content: the week's submissions and activity, what is due next, and the account's state at `now`. */
export async function buildWeeklySummary(tenant: Tenant, student: PersonRow, week: ReportWeek, now: Date): Promise<WeeklySummary> {
  const groupIds = await groupIdsOf(tenant, student);
  const [license, groups, activity, submissions, upcoming, alpha] = await Promise.all([
    licenseSection(tenant, student, now),
    groupsSection(tenant, groupIds),
    activitySection(tenant, student, week),
    submissionsSection(tenant, student, week),
    upcomingSection(tenant, student, groupIds, now),
    alphaSection(tenant, student, week, now),
  ]);
  return {
    student: { full_name: student.full_name, status: student.status },
    week: { start: week.start, end: week.end },
    license,
    groups,
    activity,
    submissions,
    upcoming_exams: upcoming,
    upcoming_window: { start: dateOnly(now), end: dateOnly(new Date(now.getTime() + UPCOMING_WINDOW_MS - DAY_MS)) },
    alpha,
    made_at: now.toISOString(),
  };
}

/** The weekly mail's subject: the same for every guardian of the student. */
const reportSubject = (institutionName: string, student: PersonRow, week: ReportWeek) =>
  `${institutionName}: weekly report for ${givenName(student.full_name)} (week of ${week.start})`;

export interface ReportPreview {
  week: ReportWeek;
  subject: string;
  text: string;
  html: string;
  /** Who would receive it now: the verified guardians (an invitation not yet confirmed receives nothing). */
  recipients: string[];
}

/**
 * The next report as it stands now: the week in progress (Monday to Sunday, UTC), which next
 * Monday's report covers, built as the Monday job builds it, and neither stored nor sent.
 */
export async function previewWeeklyReport(tenant: Tenant, studentRef: string, now = new Date()): Promise<ReportPreview> {
  const student = await findPerson(tenant, 'student', studentRef);
  // The week reported a week from now is the one under way.
  const week = reportedWeek(new Date(now.getTime() + 7 * DAY_MS));
  const [summary, institution, guardians] = await Promise.all([
    buildWeeklySummary(tenant, student, week, now),
    tenant.institution(),
    tenant.guardianLinks.findAll({ attributes: ['guardian_email'], where: { student_id: student.id, verified: true }, order: [['created_at', 'ASC']] }),
  ]);
  return {
    week,
    subject: reportSubject(institution.name, student, week),
    text: renderWeeklyReportText(summary, institution.name),
    html: renderWeeklyReportHtml(summary, institution.name),
    recipients: guardians.map((guardian) => guardian.guardian_email),
  };
}

/** One student's report for one week, with its mails, in one transaction; false when it exists already. */
async function generateStudentReport(tenant: Tenant, studentId: string, week: ReportWeek, now: Date): Promise<boolean> {
  try {
    return await tenant.inTransaction(async (tx) => {
      const existing = await tx.guardianReports.findOne({ attributes: ['id'], where: { student_id: studentId, week_start: week.start } });
      if (existing) return false;
      const student = await tx.people.findOne({ where: { id: studentId, role: 'student' } });
      // Only verified guardians: an invitation nobody accepted must not bring a child's grades to that address.
      const guardians = await tx.guardianLinks.findAll({ where: { student_id: studentId, verified: true }, order: [['created_at', 'ASC']] });
      if (!student || guardians.length === 0) return false;
      const summary = await buildWeeklySummary(tx, student, week, now);
      await tx.guardianReports.create({ id: newId('rpt'), student_id: student.id, week_start: week.start, summary, created_at: new Date() });
      const institution = await tx.institution();
      const text = renderWeeklyReportText(summary, institution.name);
      const html = renderWeeklyReportHtml(summary, institution.name);
      for (const guardian of guardians) {
        await queueMail(tx, {
          to: guardian.guardian_email,
          subject: reportSubject(institution.name, student, week),
          text,
          html,
          kind: 'guardian_report',
          // The sender checks again that the link is verified when it sends (server/mail/staleness.ts).
          about: { kind: 'guardian_link', id: guardian.id },
        });
      }
      return true;
    });
  } catch (error) {
    // Another run (the cron job and the CLI at once) made the same report first.
    if (error instanceof UniqueConstraintError) return false;
    throw error;
  }
}

/**
 * For every student with at least one verified guardian, the report of the week that ended most
 * recently before `now`, and one mail per verified guardian. Idempotent per (student, week).
 * Without `institutionId`: every approved institution.
 */
export async function generateWeeklyReports(db: Database, options: { institutionId?: string; now?: Date } = {}): Promise<{ generated: number }> {
  const now = options.now ?? new Date();
  const week = reportedWeek(now);
  const institutions = options.institutionId
    ? [await findInstitution(db, options.institutionId)]
    : await db.models.Institution.findAll({ attributes: ['id'], where: { status: 'approved' }, order: [['created_at', 'ASC']] });
  let generated = 0;
  for (const institution of institutions) {
    const tenant = new Tenant(db, institution.id);
    const links = await tenant.guardianLinks.findAll({ attributes: ['student_id'], where: { verified: true } });
    for (const studentId of [...new Set(links.map((link) => link.student_id))].sort()) {
      if (await generateStudentReport(tenant, studentId, week, now)) generated += 1;
    }
  }
  return { generated };
}

export interface ReportQuery extends PageRequest {
  student_id?: string;
  since?: Date;
}

export async function listGuardianReports(tenant: Tenant, query: ReportQuery): Promise<Page<GuardianReportRow>> {
  const where: WhereOptions[] = [];
  if (query.student_id) where.push(await studentFilter(tenant, query.student_id));
  if (query.since) where.push({ created_at: { [Op.gte]: query.since } });
  return tenant.guardianReports.page(
    {
      where: where.length ? { [Op.and]: where } : undefined,
      order: [
        ['created_at', 'ASC'],
        ['id', 'ASC'],
      ],
    },
    query,
  );
}
