import { Op, Sequelize, type WhereOptions } from 'sequelize';

/**
 * Event-type patterns: what a webhook endpoint subscribes to, and what the events feed and the
 * deliveries list filter by. Here rather than in server/events/ because the webhooks layer, below
 * the events it receives, matches them when an event is emitted.
 */

const SEGMENT = '[a-z][a-z0-9_]*';
const EXACT = new RegExp(`^${SEGMENT}(\\.${SEGMENT})+$`);
const FAMILY = new RegExp(`^${SEGMENT}(\\.${SEGMENT})*\\.\\*$`);

/** `*`, a family such as `exam.*`, or an exact type such as `exam.graded`. */
export function isEventPattern(pattern: string): boolean {
  return pattern === '*' || EXACT.test(pattern) || FAMILY.test(pattern);
}

export function matchesPattern(pattern: string, type: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return type.startsWith(pattern.slice(0, -1));
  return pattern === type;
}

/** The WHERE clause on a `type` column for one pattern; a prefix test that needs no LIKE escaping. */
export function patternWhere(pattern: string): WhereOptions {
  if (pattern === '*') return {};
  if (pattern.endsWith('.*')) {
    const prefix = pattern.slice(0, -1);
    return Sequelize.where(Sequelize.fn('substr', Sequelize.col('type'), 1, prefix.length), Op.eq, prefix);
  }
  return { type: pattern };
}
