import fs from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

interface TierTime {
  /** From the first of its files starting to the last one ending. */
  wallSeconds: number;
  /** The files' own durations added up (more than the wall time when they ran side by side). */
  fileSeconds: number;
  files: number;
  passed: number;
  failed: number;
  skipped: number;
}

/**
 * Each suite's time, by project and file, into `file` (tests/durations.json): what the sequencer
 * (tests/helpers/sequencer.ts) orders a fresh clone's run by. Suites of this run replace their
 * entries; the others stay, so recording one tier keeps the rest.
 */
function recordDurations(file: string, modules: ReadonlyArray<TestModule>): void {
  let durations: Record<string, number> = {};
  try {
    durations = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, number>;
  } catch {
    // A first recording.
  }
  for (const module of modules) {
    const seconds = module.diagnostic().duration / 1000;
    if (module.state() === 'passed' && seconds > 0) durations[`${module.project.name}:${module.relativeModuleId}`] = Math.round(seconds * 10) / 10;
  }
  const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => a.localeCompare(b)));
  fs.writeFileSync(file, `${JSON.stringify(sorted, null, 2)}\n`);
}

/** The tier of a project: `integration:postgres` belongs to `integration`. */
const tierOf = (module: TestModule) => module.project.name.split(':')[0] || 'default';

/**
 * Ends the run with the plain "N passed, N failed" line that CI logs are read for, and the time of
 * each tier: into the file CB_TEST_TIMINGS names (build/scripts/test.mjs prints it with the static
 * checks), or printed here when vitest runs on its own.
 */
export default class SummaryReporter implements Reporter {
  private readonly spans = new Map<string, { start: number; end: number }>();

  onTestModuleStart(module: TestModule): void {
    const tier = tierOf(module);
    const span = this.spans.get(tier);
    if (!span) this.spans.set(tier, { start: Date.now(), end: Date.now() });
  }

  onTestModuleEnd(module: TestModule): void {
    const span = this.spans.get(tierOf(module));
    if (span) span.end = Date.now();
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const tiers = new Map<string, TierTime>();
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      const tier = tierOf(module);
      const span = this.spans.get(tier);
      const time = tiers.get(tier) ?? { wallSeconds: span ? (span.end - span.start) / 1000 : 0, fileSeconds: 0, files: 0, passed: 0, failed: 0, skipped: 0 };
      tiers.set(tier, time);
      time.files += 1;
      time.fileSeconds += module.diagnostic().duration / 1000;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') time.passed += 1;
        else if (state === 'failed') time.failed += 1;
        else time.skipped += 1;
      }
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) time.failed += 1;
    }
    for (const time of tiers.values()) {
      passed += time.passed;
      failed += time.failed;
      skipped += time.skipped;
    }
    const record = process.env.CB_RECORD_DURATIONS;
    if (record) recordDurations(record, testModules);
    const target = process.env.CB_TEST_TIMINGS;
    if (target) {
      fs.writeFileSync(target, JSON.stringify(Object.fromEntries(tiers), null, 2));
    } else if (tiers.size > 1) {
      const lines = [...tiers].map(([tier, time]) => `  ${tier.padEnd(12)} ${time.wallSeconds.toFixed(0).padStart(5)} s  ${time.files} files`);
      process.stdout.write(`\nTime by tier (wall clock):\n${lines.join('\n')}\n`);
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
