import { Op, Sequelize } from 'sequelize';
import type { Tenant } from '../../db/tenant.js';
import type { PersonRow } from '../../models/person.js';

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
