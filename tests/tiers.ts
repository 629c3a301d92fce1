// The test tiers and the databases each suite runs on, read from the two tags at the top of every
// test file (CONTRIBUTING.md#tests). vitest.config.ts builds its projects from them, and
// tests/tiers.test.ts holds every suite to them.
import fs from 'node:fs';
import path from 'node:path';

export const TIERS = ['unit', 'integration', 'system', 'browser', 'proof'] as const;
export type Tier = (typeof TIERS)[number];

/** The folders test files live in (`*.test.ts` anywhere below them). */
export const TEST_ROOTS = ['server', 'tests', 'electron'];

export interface SuiteTags {
  tier: Tier;
  /**
   * `both`: SQLite and PostgreSQL; `once`: SQLite only, for the `reason` given; `none`: the suite
   * opens no database (and a unit suite says nothing).
   */
  databases: 'both' | 'once' | 'none';
  reason: string | null;
}

const TIER_TAG = /^\/\/ @tier (\S+)\s*$/m;
const DATABASES_TAG = /^\/\/ @databases (.+?)\s*$/m;

/** The tags of one test file's source, or the problem with them. */
export function parseTags(source: string): SuiteTags | { problem: string } {
  const head = source.split('\n').slice(0, 5).join('\n');
  const tier = TIER_TAG.exec(head)?.[1];
  if (!tier) return { problem: 'no `// @tier <tier>` line at the top' };
  if (!(TIERS as readonly string[]).includes(tier)) return { problem: `unknown tier "${tier}" (${TIERS.join(', ')})` };
  const databases = DATABASES_TAG.exec(head)?.[1];
  if (databases === undefined) return tier === 'unit' ? { tier: 'unit', databases: 'none', reason: null } : { problem: 'no `// @databases …` line' };
  if (databases === 'sqlite, postgres') return { tier: tier as Tier, databases: 'both', reason: null };
  if (databases === 'none') return { tier: tier as Tier, databases: 'none', reason: null };
  const once = /^sqlite: (.+)$/.exec(databases);
  if (once) return { tier: tier as Tier, databases: 'once', reason: once[1]! };
  return { problem: `@databases must be "sqlite, postgres", "none" or "sqlite: <why one database is enough>", not "${databases}"` };
}

/** Every test file of the repository (relative, with forward slashes), sorted. */
export function testFiles(root: string): string[] {
  return TEST_ROOTS.flatMap((dir) =>
    fs
      .readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.test.ts'))
      .map((file) => [dir, ...file.split(path.sep)].join('/')),
  ).sort();
}

/** Each test file with its tags; a file whose tags are wrong has `problem` instead. */
export function readSuites(root: string): Array<{ file: string; tags: SuiteTags | { problem: string } }> {
  return testFiles(root).map((file) => ({ file, tags: parseTags(fs.readFileSync(path.join(root, file), 'utf8')) }));
}

/** The files of one tier, and of those the ones that also run on PostgreSQL. */
export function tierFiles(root: string, tier: Tier): { all: string[]; postgres: string[] } {
  const suites = readSuites(root).flatMap(({ file, tags }) => ('problem' in tags || tags.tier !== tier ? [] : [{ file, tags }]));
  return { all: suites.map((suite) => suite.file), postgres: suites.filter((suite) => suite.tags.databases === 'both').map((suite) => suite.file) };
}
