import fs from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order suites start in (CONTRIBUTING.md#tests). vitest's own order takes the projects by name
 * (integration, …, proof, system, unit) and, in a fresh clone with no timings cached, each
 * project's largest files first: the system suites, which mostly wait on processes they start,
 * then ran last and alone, leaving both cores idle for half a minute. Here the projects that wait
 * most start first, so their waits overlap the others' work; each project's suites stay together
 * (a worker keeps the modules it imported for the next suite of its project), longest first.
 *
 * A suite's expected time comes from vitest's cache (the last run on this checkout), else from
 * `tests/durations.json` (committed; `npm test -- --record-durations` rewrites it), else from its
 * size (a suite nobody has timed yet is assumed long, so it starts early).
 */
const PROJECT_ORDER = ['system', 'proof', 'proof:postgres', 'integration:postgres', 'integration', 'unit'];
const projectRank = (name: string) => (PROJECT_ORDER.includes(name) ? PROJECT_ORDER.indexOf(name) : PROJECT_ORDER.length);

export default class LongestFirst extends BaseSequencer {
  private recorded: Record<string, number> | undefined;

  private expected(spec: TestSpecification): number {
    const file = path.relative(this.ctx.config.root, spec.moduleId).split(path.sep).join('/');
    const key = `${spec.project.name}:${file}`;
    const cached = this.ctx.cache.getFileTestResults(key);
    if (cached && !cached.failed && cached.duration > 0) return cached.duration / 1000;
    this.recorded ??= readDurations(path.join(this.ctx.config.root, 'tests', 'durations.json'));
    const known = this.recorded[key];
    if (known !== undefined) return known;
    return Number.POSITIVE_INFINITY;
  }

  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const expected = new Map(files.map((spec) => [spec, this.expected(spec)]));
    return [...files].sort((a, b) => {
      const group = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (group !== 0) return group;
      const project = projectRank(a.project.name) - projectRank(b.project.name);
      if (project !== 0) return project;
      const longer = expected.get(b)! - expected.get(a)!;
      // Infinity - Infinity is NaN: two untimed suites keep their order.
      return Number.isNaN(longer) ? 0 : longer;
    });
  }
}

function readDurations(file: string): Record<string, number> {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}
