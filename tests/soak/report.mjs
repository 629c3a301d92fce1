// The soak's figures: per request class, the deliveries per endpoint, memory by the minute, and
// which bars pass. Printed as Markdown tables, like the bench's, so a run can go into
// docs/performance.md as printed.
import { percentile } from '../bench/drivers.mjs';

const BARS = { readP99Ms: 50, writeP99Ms: 250, maxMs: 2_000, rssGrowth: 0.15 };

const ms = (value) => (Number.isFinite(value) ? `${value < 10 ? value.toFixed(1) : Math.round(value)}` : '–');
const int = (value) => Math.round(value).toLocaleString('en-US');
const mark = (ok) => (ok ? 'pass' : '**FAIL**');

function table(header, rows) {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const row of rows) lines.push(`| ${row.join(' | ')} |`);
  return lines.join('\n');
}

/** One row per request class: count, p50, p99, max, 5xx, other failures (timeouts, connection errors) and 4xx. */
export function classRows(recorder) {
  return [...recorder.classes.values()].map((entry) => {
    const sorted = [...entry.ms].sort((a, b) => a - b);
    const slowest = entry.ms.indexOf(sorted.at(-1));
    const count = (test) => Object.entries(entry.statuses).reduce((sum, [status, n]) => sum + (test(status) ? n : 0), 0);
    return {
      name: entry.name,
      kind: entry.kind,
      count: sorted.length,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      maxMs: sorted.at(-1) ?? NaN,
      maxAtSecond: slowest >= 0 ? entry.at[slowest] : NaN,
      status5xx: count((status) => /^5/.test(status)),
      status4xx: count((status) => /^4/.test(status)),
      errors: entry.errors,
      statuses: entry.statuses,
      failures: entry.failures,
    };
  });
}

/**
 * The deliveries one receiver got against the events it was subscribed to: an event the LMS saw
 * whose type matches one of the endpoint's patterns (server/webhooks/patterns.ts) must arrive with
 * a 2xx once. Lost: never answered 2xx. Duplicated: answered 2xx more than once.
 */
/**
 * Interactive requests over the write bar (250 ms), by 10 s of the day: whether the slow ones
 * cluster around the sync and the backup or spread over the day.
 */
export function slowByWindow(recorder, overMs = BARS.writeP99Ms, windowSeconds = 10) {
  const windows = new Map();
  for (const entry of recorder.classes.values()) {
    if (entry.kind === 'long write') continue;
    entry.ms.forEach((value, i) => {
      if (value <= overMs) return;
      const from = Math.floor(entry.at[i] / windowSeconds) * windowSeconds;
      windows.set(from, (windows.get(from) ?? 0) + 1);
    });
  }
  return [...windows.entries()].sort((a, b) => a[0] - b[0]).map(([from, count]) => ({ from, to: from + windowSeconds, count }));
}

export function deliveryFigures(endpoint, events) {
  const matches = (type) =>
    endpoint.events.some((pattern) => pattern === '*' || (pattern.endsWith('.*') ? type.startsWith(pattern.slice(0, -1)) : pattern === type));
  const expected = events.filter((event) => matches(event.type));
  const { stats } = endpoint.receiver;
  const lost = expected.filter((event) => !stats.delivered.has(event.id));
  const duplicated = [...stats.delivered.values()].reduce((sum, n) => sum + Math.max(0, n - 1), 0);
  const expectedIds = new Set(expected.map((event) => event.id));
  const lags = [...stats.lagMs].sort((a, b) => a - b);
  return {
    name: endpoint.name,
    behaviour: stats.behaviour,
    events: endpoint.events,
    expected: expected.length,
    delivered: stats.delivered.size,
    requests: stats.requests,
    failedAnswers: stats.failedAnswers,
    lost: lost.length,
    lostSample: lost.slice(0, 5),
    duplicated,
    unexpected: [...stats.delivered.keys()].filter((id) => !expectedIds.has(id)).length,
    lagP50Ms: percentile(lags, 0.5),
    lagMaxMs: lags.at(-1) ?? NaN,
  };
}

/** RSS of each process: the reference minute (2, or 1 for --quick) against the last. */
export function memoryFigures(rss, quick) {
  const referenceMinute = quick ? 1 : 2;
  return Object.entries(rss.byProcess).map(([name, samples]) => {
    const reference = samples.find((sample) => sample.minute === referenceMinute);
    const last = samples.filter((sample) => sample.minute > 0).at(-1);
    const growth = reference && last ? (last.mb - reference.mb) / reference.mb : NaN;
    return { name, referenceMinute, referenceMb: reference?.mb ?? NaN, lastMinute: last?.minute ?? NaN, lastMb: last?.mb ?? NaN, growth };
  });
}

export function bars(r) {
  const interactive = r.classes.filter((row) => row.kind !== 'long write');
  const failing5xx = r.classes.filter((row) => row.status5xx + row.errors > 0);
  const slow = interactive.filter((row) => row.maxMs > BARS.maxMs);
  const writes = interactive.filter((row) => row.kind === 'write' && !(row.p99Ms < BARS.writeP99Ms));
  const reads = interactive.filter((row) => row.kind === 'read' && !(row.p99Ms < BARS.readP99Ms));
  const lost = r.deliveries.filter((row) => row.lost > 0);
  const duplicated = r.deliveries.filter((row) => row.duplicated > 0);
  const grown = r.memory.filter((row) => !(Math.abs(row.growth) <= BARS.rssGrowth));
  const names = (rows, show) => rows.map(show).join('; ');
  return [
    {
      bar: '0 × 5xx (nor timeouts, connection errors)',
      ok: failing5xx.length === 0,
      detail: names(failing5xx, (row) => `${row.name}: ${row.status5xx} × 5xx, ${row.errors} errors`),
    },
    { bar: 'nothing over 2 s (the sync request aside)', ok: slow.length === 0, detail: names(slow, (row) => `${row.name}: max ${ms(row.maxMs)} ms`) },
    { bar: 'writes p99 < 250 ms', ok: writes.length === 0, detail: names(writes, (row) => `${row.name}: p99 ${ms(row.p99Ms)} ms`) },
    { bar: 'reads p99 < 50 ms', ok: reads.length === 0, detail: names(reads, (row) => `${row.name}: p99 ${ms(row.p99Ms)} ms`) },
    { bar: 'no delivery lost', ok: lost.length === 0, detail: names(lost, (row) => `${row.name}: ${row.lost} of ${row.expected}`) },
    { bar: 'no delivery duplicated', ok: duplicated.length === 0, detail: names(duplicated, (row) => `${row.name}: ${row.duplicated}`) },
    {
      bar: `RSS at the last minute within 15 % of minute ${r.quick ? 1 : 2}`,
      ok: grown.length === 0,
      detail: names(grown, (row) => `${row.name}: ${int(row.referenceMb)} → ${int(row.lastMb)} MB`),
    },
  ];
}

export function renderReport(r) {
  const out = [];
  out.push(`## CampusBridge soak${r.quick ? ' (--quick)' : ''}`, '');
  out.push(`${r.machine}; ${r.startedAt}; server code: ${r.commit}`, '');
  out.push(`Database: ${r.database}; processes: ${r.processes.join(', ')}`, '');
  out.push(
    `${r.plan.seconds} s of load: ${r.plan.learners} learners, ${r.plan.graders} teachers grading, a OneRoster sync of ${int(r.plan.users)} users at ${r.plan.syncAtSeconds} s, ` +
      `a backup at ${r.plan.backupAtSeconds} s; then up to ${r.plan.drainSeconds} s for the last deliveries.`,
    '',
  );
  out.push(
    table(
      ['Requests', 'Bar', 'Count', 'p50 ms', 'p99 ms', 'Max ms', 'Max at s', '5xx', 'Errors', '4xx'],
      r.classes.map((row) => [
        row.name,
        row.kind === 'read' ? 'read' : row.kind === 'write' ? 'write' : 'none',
        int(row.count),
        ms(row.p50Ms),
        ms(row.p99Ms),
        ms(row.maxMs),
        Number.isFinite(row.maxAtSecond) ? Math.round(row.maxAtSecond) : '–',
        row.status5xx,
        row.errors,
        row.status4xx,
      ]),
    ),
    '',
  );
  out.push(`Throughput: ${int(r.totals.requests)} requests in ${int(r.totals.seconds)} s, ${r.totals.perSecond.toFixed(1)} requests/s.`, '');
  out.push(
    `Requests over 250 ms (the sync request aside), by second of the day: ${r.slowWindows.length ? r.slowWindows.map((w) => `${w.from}–${w.to} s: ${w.count}`).join(', ') : 'none'}.`,
    '',
  );
  if (r.sync) {
    out.push(
      `OneRoster sync: ${r.sync.outcome} in ${ms(r.sync.ms)} ms, created ${r.sync.created?.students ?? '?'} students, ${r.sync.created?.faculty ?? '?'} faculty, ${r.sync.created?.groups ?? '?'} groups${r.sync.reason ? ` (${r.sync.reason})` : ''}.`,
      '',
    );
  }
  out.push(`Backup (${r.backup.how}): ${r.backup.ok ? `${ms(r.backup.ms)} ms` : `failed: ${r.backup.error}`}.`, '');
  out.push(
    `Exam: ${r.exam.submitted} of ${r.plan.learners} learners submitted, ${r.exam.graded} graded. LMS events feed: ${int(r.lms.events)} events, ${r.lms.repeated} seen twice.`,
    '',
  );
  out.push(
    table(
      ['Webhook endpoint', 'Events', 'Expected', 'Delivered', 'Requests', '500s answered', 'Lost', 'Duplicated', 'Lag p50 / max ms'],
      r.deliveries.map((row) => [
        `${row.name} (${row.behaviour})`,
        row.events.join(', '),
        int(row.expected),
        int(row.delivered),
        int(row.requests),
        int(row.failedAnswers),
        row.lost,
        row.duplicated,
        `${ms(row.lagP50Ms)} / ${ms(row.lagMaxMs)}`,
      ]),
    ),
    '',
  );
  out.push(
    table(
      ['Process', ...r.rss.minutes.map((minute) => (minute === 0 ? 'start' : `min ${minute}`)), 'Growth'],
      r.memory.map((row) => [
        row.name,
        ...r.rss.minutes.map((minute) => {
          const sample = r.rss.byProcess[row.name].find((s) => s.minute === minute);
          return sample ? `${int(sample.mb)} MB` : '–';
        }),
        Number.isFinite(row.growth) ? `${row.growth >= 0 ? '+' : ''}${(row.growth * 100).toFixed(1)} % (min ${row.referenceMinute} → ${row.lastMinute})` : '–',
      ]),
    ),
    '',
  );
  out.push('### Bars', '');
  out.push(
    table(
      ['Bar', '', 'Failing'],
      r.bars.map((row) => [row.bar, mark(row.ok), row.detail || '']),
    ),
    '',
  );
  const failures = r.classes.flatMap((row) => row.failures.map((failure) => ({ name: row.name, ...failure })));
  if (failures.length || r.problems.length || r.serverErrors.length) {
    out.push('### Failures (first few of each)', '');
    for (const failure of failures) {
      out.push(`- ${failure.name}: ${failure.what} → ${failure.status ?? 'no answer'} after ${failure.ms} ms, sent at ${failure.atSecond} s: ${failure.body}`);
    }
    for (const problem of r.problems) out.push(`- ${problem.who} stopped at "${problem.step}": ${problem.status ?? 'no answer'} ${problem.body}`);
    for (const line of r.serverErrors) out.push(`- server log (${line.process}): ${line.text}`);
    out.push('');
  }
  for (const row of r.deliveries.filter((d) => d.lost > 0)) {
    out.push(`Lost at ${row.name}, first ${row.lostSample.length}: ${row.lostSample.map((e) => `${e.type} ${e.id} (${e.created_at})`).join(', ')}`, '');
  }
  return out.join('\n');
}
