import { Op, Sequelize } from 'sequelize';
import type { Tenant, TenantTx } from '../../db/tenant.js';
import { AppError } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { newId } from '../../ids.js';
import type { AlphaBadgeRow, AlphaPointsRow } from '../../models/alpha.js';
import { findPerson } from '../people/people.js';
import { utcDay } from './rules.js';

const dayBefore = (day: string) => utcDay(new Date(Date.parse(`${day}T00:00:00.000Z`) - 86_400_000));

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
  return tenant.alphaBadges.findAll({
    where: { student_id: studentId },
    order: [
      ['awarded_at', 'ASC'],
      ['code', 'ASC'],
    ],
  });
}

/**
 * Writes a ledger row with the running total and its `alpha.points.awarded`, in the caller's
 * transaction. `created_at` is strictly increasing per student (as events are per institution), so
 * "newest first" is the order the rows were written, even for two rows of one activity.
 */
export async function addLedgerRow(
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
    tenant.alphaPoints.findAll({
      where: { student_id: student.id },
      order: [
        ['created_at', 'DESC'],
        ['id', 'DESC'],
      ],
      limit,
    }),
  ]);
  return { total, streakDays: streak, badges, ledger };
}
