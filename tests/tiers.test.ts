// @tier unit
// The tags every test file carries (CONTRIBUTING.md#tests): its tier, and for a suite that opens a
// database, whether it runs on both databases or why one is enough. vitest.config.ts builds its
// projects from the same tags, so a suite without them would not run at all.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import config from '../vitest.config.js';
import { parseTags, readSuites, type SuiteTags } from './tiers.js';

const root = path.resolve(import.meta.dirname, '..');
const suites = readSuites(root);
const tagged = suites.flatMap(({ file, tags }) => ('problem' in tags ? [] : [{ file, tags, source: fs.readFileSync(path.join(root, file), 'utf8') }]));

/** The modules a file imports (the `from '…';` that ends an import statement). */
const importsOf = (source: string) => [...source.matchAll(/\bfrom '([^']+)';$/gm)].map((match) => match[1]!);

/** What opens a database, starts an appliance or a process: a unit suite imports none of it. */
const NOT_PURE = [
  /helpers\/(appliance|bundle|cli|browser|portal|postgres|redis)\.js$/,
  /server\/(appliance|db\/[a-z-]+)\.js$/,
  /^node:child_process$/,
  /^playwright-core$/,
];
/** What opens a database: a suite that imports one of these says which databases it runs on. */
const OPENS_DATABASE = [/helpers\/(appliance|bundle|cli|portal)\.js$/, /server\/(appliance|db\/index)\.js$/];
const importsAny = (source: string, patterns: RegExp[]) => importsOf(source).some((module) => patterns.some((pattern) => pattern.test(module)));

/**
 * The milliseconds a bound such as `2_000`, `400 + 1500` or `STOP_TIMEOUT_MS` stands for (a name
 * is looked up among the file's `const NAME = <number>`); NaN when it is something else.
 */
function millis(bound: string, source: string): number {
  const value = (term: string) => {
    const name = /^[A-Z_]+$/.exec(term)?.[0];
    const text = name ? (new RegExp(`const ${name} = ([\\d_]+);`).exec(source)?.[1] ?? 'NaN') : term;
    return Number(text.replaceAll('_', ''));
  };
  return bound.split('+').reduce((sum, term) => sum + value(term.trim()), 0);
}

/**
 * Upper bounds under five seconds put on an elapsed time: `Date.now() - x` or `performance.now() - x`
 * (or `.at - x`), directly in `expect(…)` or through a variable holding it.
 */
function elapsedClaims(source: string): string[] {
  const elapsed = /(?:Date\.now\(\)|performance\.now\(\)|\.at) - \w+/;
  const holders = [...source.matchAll(/const (\w+) = (?:Date\.now\(\)|performance\.now\(\)|[\w.![\]]+\.at) - \w+;/g)].map((match) => match[1]!);
  const claims: string[] = [];
  for (const match of source.matchAll(/expect\(([^;]*?)\)\.toBeLessThan(?:OrEqual)?\(([^)]+)\)/g)) {
    const [claim, subject, bound] = match as unknown as [string, string, string];
    const timed = elapsed.test(subject) || holders.includes(subject.trim());
    if (timed && !(millis(bound, source) >= 5_000)) claims.push(claim);
  }
  return claims;
}

describe('test tiers', () => {
  it('every test file starts with a valid @tier line, and @databases unless it is a unit suite', () => {
    const problems = suites.flatMap(({ file, tags }) => ('problem' in tags ? [`${file}: ${tags.problem}`] : []));
    expect(problems).toEqual([]);
    expect(tagged.length).toBeGreaterThan(100);
  });

  it('the browser suites are the ones in tests/e2e/', () => {
    const browser = tagged.filter(({ tags }) => tags.tier === 'browser').map(({ file }) => file);
    const inE2e = tagged.filter(({ file }) => file.startsWith('tests/e2e/')).map(({ file }) => file);
    expect(browser).toEqual(inE2e);
  });

  it('unit suites start no server, database, process or browser', () => {
    const impure = tagged.filter(({ tags, source }) => tags.tier === 'unit' && importsAny(source, NOT_PURE)).map(({ file }) => file);
    expect(impure).toEqual([]);
  });

  it('a suite that opens a database names its databases, and says why when it is one', () => {
    const silent = tagged.filter(({ tags, source }) => tags.databases === 'none' && importsAny(source, OPENS_DATABASE)).map(({ file }) => file);
    expect(silent).toEqual([]);
    expect(tagged.filter(({ source }) => importsAny(source, OPENS_DATABASE)).length).toBeGreaterThan(80);
    const unexplained = tagged.filter(({ tags }) => tags.databases === 'once' && (tags.reason ?? '').split(/\s+/).length < 4).map(({ file }) => file);
    expect(unexplained).toEqual([]);
  });

  it('every suite that writes inside a transaction of its own runs on both databases or says why not', () => {
    const writers = tagged.filter(({ source }) => /\.(inTransaction|transaction)\(/.test(source));
    expect(writers.length).toBeGreaterThan(0);
    for (const { file, tags } of writers) expect(tags.databases, file).not.toBe('none');
  });

  it('reads the tags exactly: a missing or vague one is a problem, not a default', () => {
    const problem = (source: string) => 'problem' in (parseTags(source) as SuiteTags | { problem: string });
    expect(problem('// nothing here\n')).toBe(true);
    expect(problem('// @tier integration\n')).toBe(true);
    expect(problem('// @tier smoke\n')).toBe(true);
    expect(problem('// @tier integration\n// @databases sqlite\n')).toBe(true);
    expect(problem('// @tier integration\n// @databases postgres\n')).toBe(true);
    expect(parseTags('// @tier unit\n')).toEqual({ tier: 'unit', databases: 'none', reason: null });
    expect(parseTags('// @tier integration\n// @databases sqlite, postgres\n')).toEqual({ tier: 'integration', databases: 'both', reason: null });
    expect(parseTags('// @tier system\n// @databases sqlite: SIGKILL, then the integrity check\n')).toEqual({
      tier: 'system',
      databases: 'once',
      reason: 'SIGKILL, then the integrity check',
    });
  });

  it('no suite asserts that something took less than five seconds: speed is for npm run bench', () => {
    // This file's own examples below are the only ones allowed.
    const others = tagged.filter(({ file }) => file !== 'tests/tiers.test.ts');
    const claims = others.flatMap(({ file, source }) => elapsedClaims(source).map((claim) => `${file}: ${claim}`));
    expect(claims).toEqual([]);
    // The check finds what it looks for.
    expect(elapsedClaims('const took = Date.now() - startedAt;\nexpect(took).toBeLessThan(2_000);')).toHaveLength(1);
    expect(elapsedClaims('expect(performance.now() - started).toBeLessThan(400 + 1500);')).toHaveLength(1);
    expect(elapsedClaims('expect(receiver.requests[0]!.at - started).toBeLessThan(900);')).toHaveLength(1);
    expect(elapsedClaims('expect(seconds).toBeLessThan(60);\nconst seconds = (Date.now() - started) / 1000;')).toEqual([]);
    expect(elapsedClaims('expect(waited).toBeGreaterThanOrEqual(1900);\nconst waited = Date.now() - started;')).toEqual([]);
    expect(elapsedClaims('const LIMIT_MS = 10_000;\nexpect(Date.now() - signalled).toBeLessThan(LIMIT_MS);')).toEqual([]);
    expect(elapsedClaims('const LIMIT_MS = 1_000;\nexpect(Date.now() - signalled).toBeLessThan(LIMIT_MS);')).toHaveLength(1);
  });

  it("vitest's projects run each suite in its tier, and on PostgreSQL exactly the suites tagged for both", () => {
    const projects = (config.test?.projects ?? []) as Array<{ test: { name: string; include: string[] } }>;
    const runs = new Map<string, string[]>();
    for (const project of projects) for (const file of project.test.include) runs.set(file, [...(runs.get(file) ?? []), project.test.name]);
    for (const { file, tags } of tagged) {
      const expected = tags.databases === 'both' ? [tags.tier, `${tags.tier}:postgres`] : [tags.tier];
      expect(runs.get(file), file).toEqual(expected);
    }
    expect(runs.size).toBe(tagged.length);
  });
});
