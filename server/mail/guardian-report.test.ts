// @tier unit
import { describe, expect, it } from 'vitest';
import type { WeeklySummary } from '../models/guardian.js';
import { renderWeeklyReportHtml, renderWeeklyReportText } from './guardian-report.js';

/** A report of the week of Nov 16 to 22, made on `madeAt`. */
function summary(madeAt: string, alpha: Partial<WeeklySummary['alpha']> = {}): WeeklySummary {
  const made = new Date(madeAt);
  const end = new Date(made.getTime() + 6 * 86_400_000);
  return {
    student: { full_name: 'Ashworth-Smythe, Tom', status: 'active' },
    week: { start: '2026-11-16', end: '2026-11-22' },
    license: { status: 'active', expires_at: '2027-09-01T00:00:00.000Z' },
    groups: ['Year 8'],
    activity: { events: 2, by_type: {} },
    submissions: [],
    upcoming_exams: [],
    upcoming_window: { start: madeAt.slice(0, 10), end: end.toISOString().slice(0, 10) },
    alpha: { minutes: 0, activities: 0, points_earned: 0, points_total: 0, curricula: [], ...alpha },
    made_at: madeAt,
  };
}

describe('the weekly report in words', () => {
  it('made late, it speaks of the week it covers and of dated days, never "this week" or "the next 7 days"', () => {
    const text = renderWeeklyReportText(summary('2026-11-27T09:00:00.000Z'), 'Lakeside');
    expect(text).toContain('Made on 2026-11-27, about the week of 2026-11-16 to 2026-11-22.');
    expect(text).toContain('Submissions, 2026-11-16 to 2026-11-22\nNo submissions in that week.');
    expect(text).toContain('Due 2026-11-27 to 2026-12-03\nNothing due on those days.');
    expect(text).toContain('guardian of Tom at Lakeside');
    expect(text).not.toMatch(/this week|next 7 days/i);
    expect(renderWeeklyReportHtml(summary('2026-11-27T09:00:00.000Z'), 'Lakeside')).toContain('Made on 2026-11-27');
  });

  it('made on the Monday after its week, it needs no note', () => {
    expect(renderWeeklyReportText(summary('2026-11-23T06:00:00.000Z'), 'Lakeside')).not.toContain('Made on');
  });

  it('says nothing of Alpha Learning to a school that does not use it, and its lines to one that does', () => {
    expect(renderWeeklyReportText(summary('2026-11-23T06:00:00.000Z'), 'Lakeside')).not.toContain('Alpha');
    const used = renderWeeklyReportText(summary('2026-11-23T06:00:00.000Z', { minutes: 17, activities: 2, points_total: 40, points_earned: 10 }), 'Lakeside');
    expect(used).toContain('Alpha Learning, 2026-11-16 to 2026-11-22');
    expect(used).toContain('Practice: 17 minutes in 2 activities');
    expect(used).toContain('Points: 10 earned in that week, 40 in total');
  });
});
