import type { BadgeCode } from '../../models/alpha.js';

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

/** `YYYY-MM-DD` of the UTC calendar day. */
export const utcDay = (date: Date) => date.toISOString().slice(0, 10);

export const nextMastery = (mastery: number, correct: boolean) => mastery + ALPHA_RULES.MASTERY_RATE * ((correct ? 1 : 0) - mastery);
