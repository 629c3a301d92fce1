// The benchmark's table: every figure of docs/performance.md with its goal, the measured value and whether
// it is met, in Markdown so it can go into docs/performance.md as printed.
const LIST_FILTERS = ['none', 'email', 'group_id', 'student_id', 'status', 'last page', 'q'];
/** Filters whose matches grow with the institution (a family name is one student in 160): their cost may grow with it too. */
const GROWING_MATCHES = new Set(['q']);

const ms = (value) => (Number.isFinite(value) ? `${value < 10 ? value.toFixed(1) : Math.round(value)} ms` : 'timeout');
const int = (value) => Math.round(value).toLocaleString('en-US');
const mark = (ok) => (ok ? 'met' : '**missed**');
const growth = (small, big) => (Number.isFinite(small) && Number.isFinite(big) && small > 0 ? big / small : Infinity);
const times = (ratio) => (Number.isFinite(ratio) ? `${ratio.toFixed(1)}×` : '∞');

function fixedRateNote(run) {
  const notes = [];
  if (run.timeouts) notes.push(`${run.timeouts} timed out`);
  if (run.errors) notes.push(`${run.errors} failed`);
  if (run.non2xx) notes.push(`${run.non2xx} non-2xx`);
  return notes.length ? ` (${notes.join(', ')} of ${run.sent})` : '';
}

export function figureRows(r) {
  const rows = [];
  const add = (figure, goal, measured, ok) => rows.push({ figure, goal, measured, status: ok === null ? '' : mark(ok) });

  add(
    '`GET /v1/me` req/s ÷ bare Express 5, same JSON',
    '≥ 0.5',
    `${r.me.ratio.toFixed(2)} (${int(r.me.serverRps)} vs ${int(r.me.bareRps)} req/s, median of ${r.me.runs.length})`,
    r.me.ratio >= 0.5,
  );
  for (const [size, lists] of [
    [r.sizes.smallStudents, r.lists.small],
    [r.sizes.bigStudents, r.lists.big],
  ]) {
    for (const filter of LIST_FILTERS) {
      const run = lists[filter];
      add(
        `\`GET /v1/students\` ${filter === 'none' ? 'no filter' : filter}, p99 at ${run.rate} req/s, ${int(size)} students`,
        '< 20 ms',
        `p99 ${ms(run.p99Ms)}, p50 ${ms(run.p50Ms)}${fixedRateNote(run)}`,
        run.p99Ms < 20 && !run.non2xx,
      );
    }
  }
  add(
    '`POST /v1/students/bulk` 200, new institution',
    'median < 300 ms',
    `${ms(r.bulk.fresh.medianMs)} (${r.bulk.fresh.calls} calls)`,
    r.bulk.fresh.medianMs < 300,
  );
  add(
    `\`POST /v1/students/bulk\` 200, into the ${int(r.sizes.bigStudents)}`,
    'median < 300 ms',
    `${ms(r.bulk.big.medianMs)} (${r.bulk.big.calls} calls)`,
    r.bulk.big.medianMs < 300,
  );
  for (const [size, run] of [
    [r.sizes.smallEvents, r.events.small],
    [r.sizes.bigEvents, r.events.big],
  ]) {
    add(
      `\`GET /v1/events?since=…&limit=200\` at ${run.rate} req/s, ${int(size)} events`,
      'p50 < 5 ms, p99 < 20 ms',
      `p50 ${ms(run.p50Ms)}, p99 ${ms(run.p99Ms)}${fixedRateNote(run)}`,
      run.p50Ms < 5 && run.p99Ms < 20 && !run.non2xx,
    );
  }
  const w = r.webhooks;
  add(
    'Webhook deliveries/s, one instant receiver on 127.0.0.1',
    '≥ 500/s, none lost or duplicated',
    `${int(w.perSecond)}/s for ${int(w.events)} events (${w.lost} lost, ${w.duplicates} duplicated; lag p50 ${ms(w.lagP50Ms)}, max ${ms(w.lagMaxMs)}; events made at ${int(w.producedPerSecond)}/s)`,
    w.perSecond >= 500 && w.lost === 0 && w.duplicates === 0,
  );
  if (r.webhookLag) {
    add(
      'A new delivery attempted after its commit, engine idle',
      'within 100 ms',
      `max ${ms(r.webhookLag.maxMs)}, p50 ${ms(r.webhookLag.p50Ms)} (${r.webhookLag.count} single events)`,
      r.webhookLag.maxMs < 100,
    );
  }
  add('Idle RSS after start', '< 150 MB', `${int(r.memory.idleLoadedMb)} MB loaded, ${int(r.memory.idleEmptyMb)} MB empty`, r.memory.idleLoadedMb < 150);
  if (r.wizard)
    add(
      'Set-up wizard, first load in Chromium (empty cache)',
      '< 1.5 s',
      `median ${ms(r.wizard.medianMs)}, slowest ${ms(r.wizard.maxMs)} of ${r.wizard.loadsMs.length}`,
      r.wizard.maxMs < 1500,
    );
  else add('Set-up wizard, first load in Chromium (empty cache)', '< 1.5 s', 'not measured: no Chromium', null);
  add('Cold start to the start line', '< 1.5 s', `${ms(r.start.loadedMs)} loaded, ${ms(r.start.emptyMs)} empty`, r.start.loadedMs < 1500);
  return rows;
}

export function growthRows(r) {
  const rows = LIST_FILTERS.filter((filter) => !GROWING_MATCHES.has(filter)).map((filter) => {
    const ratio = growth(r.lists.small[filter].p99Ms, r.lists.big[filter].p99Ms);
    return { figure: `students list p99, ${filter}`, from: r.sizes.smallStudents, to: r.sizes.bigStudents, ratio, ok: ratio < 2 };
  });
  for (const key of ['p50Ms', 'p99Ms']) {
    const ratio = growth(r.events.small[key], r.events.big[key]);
    rows.push({ figure: `events ${key.slice(0, 3)}`, from: r.sizes.smallEvents, to: r.sizes.bigEvents, ratio, ok: ratio < 2 });
  }
  return rows;
}

function table(header, rows) {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const row of rows) lines.push(`| ${row.join(' | ')} |`);
  return lines.join('\n');
}

export function renderReport(r) {
  const out = [];
  out.push(`## CampusBridge benchmark${r.quick ? ' (--quick)' : ''}`, '');
  out.push(`${r.machine}; ${r.startedAt}; server code: ${r.commit}`, '');
  // Runs before the database was a choice measured SQLite.
  out.push(`Database: ${r.database ?? 'SQLite'}`, '');
  out.push(
    table(
      ['Figure', 'Goal', 'Measured', ''],
      figureRows(r).map((row) => [row.figure, row.goal, row.measured, row.status]),
    ),
    '',
  );
  out.push('Growth with the institution (goal: < 2×)', '');
  out.push(
    table(
      ['Figure', 'From', 'To', 'Growth', ''],
      growthRows(r).map((row) => [row.figure, int(row.from), int(row.to), times(row.ratio), mark(row.ok)]),
    ),
    '',
  );
  out.push('Data', '');
  for (const line of r.dataNotes) out.push(`- ${line}`);
  out.push('');
  if (r.sql) {
    out.push('SQL statements per request (counted at the sqlite3 driver; the appliance has no hook of its own)', '');
    out.push(
      table(
        ['Request', 'Statements'],
        r.sql.map((row) => [row.request, row.perRequest.toFixed(1)]),
      ),
      '',
    );
  }
  if (r.profile) {
    out.push(`Server CPU profile (whole measuring phase): ${r.profile}`, '');
    if (r.profileSummary) {
      const pct = (share) => `${(share * 100).toFixed(1)}%`;
      out.push(`Self time over ${r.profileSummary.seconds.toFixed(0)} s, by package and by function`, '');
      out.push(
        table(
          ['Package', 'Share'],
          r.profileSummary.packages.map((row) => [row.name, pct(row.share)]),
        ),
        '',
      );
      out.push(
        table(
          ['Function', 'Share'],
          r.profileSummary.functions.map((row) => [`\`${row.name}\``, pct(row.share)]),
        ),
        '',
      );
    }
  }
  return out.join('\n');
}
