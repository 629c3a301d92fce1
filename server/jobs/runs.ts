import { Op } from 'sequelize';
import type { Database } from '../db/index.js';
import { newId } from '../ids.js';
import { JOB_RUNS_KEPT, type JobRunOutcome, type JobRunRow } from '../models/job-run.js';

const DETAIL_MAX = 300;

/** A run's summary as stored: the job's counts as JSON, or the error's message, cut to fit. */
export function runDetail(value: Record<string, unknown> | void | Error): string | null {
  if (value === undefined) return null;
  const text = value instanceof Error ? value.message : JSON.stringify(value);
  return text.length > DETAIL_MAX ? `${text.slice(0, DETAIL_MAX - 1)}…` : text;
}

/** Writes the row of a run that starts now; `finishRun` completes it. */
export async function startRun(db: Database, job: string, startedAt: Date): Promise<string> {
  const id = newId('jrun');
  await db.sequelize.transaction((transaction) =>
    db.models.JobRun.create({ id, job, started_at: startedAt, finished_at: null, outcome: null, detail: null }, { transaction }),
  );
  return id;
}

/**
 * Starts an automatic run (scheduled or caught up) unless another process already started one in
 * this period: null then. Several worker processes each fire every job at its cron time; the run
 * that commits first takes the period. Reading the newest run and writing the new one in one
 * transaction is the lock: SQLite runs write transactions one at a time, and PostgreSQL's
 * serializable transactions make the second reader run again and see the first's row. A run
 * started more than half a period ago does not hold the next one back, finished or not (its
 * process may have died).
 */
export async function claimRun(db: Database, job: string, startedAt: Date, periodMs: number): Promise<string | null> {
  const { JobRun } = db.models;
  return db.sequelize.transaction(async (transaction) => {
    const newest = await JobRun.findOne({ where: { job }, order: [['started_at', 'DESC']], transaction });
    if (newest && startedAt.getTime() - newest.started_at.getTime() < periodMs / 2) return null;
    const id = newId('jrun');
    await JobRun.create({ id, job, started_at: startedAt, finished_at: null, outcome: null, detail: null }, { transaction });
    return id;
  });
}

/** Records how a run ended, and deletes the job's runs beyond the newest JOB_RUNS_KEPT in the same transaction. */
export async function finishRun(db: Database, id: string, job: string, outcome: JobRunOutcome, detail: string | null): Promise<void> {
  const { JobRun } = db.models;
  await db.sequelize.transaction(async (transaction) => {
    await JobRun.update({ finished_at: new Date(), outcome, detail }, { where: { id }, transaction });
    const oldestKept = await JobRun.findOne({ where: { job }, order: [['started_at', 'DESC']], offset: JOB_RUNS_KEPT - 1, transaction });
    if (oldestKept) await JobRun.destroy({ where: { job, started_at: { [Op.lt]: oldestKept.started_at } }, transaction });
  });
}

/** Each job's newest run (finished or not), by job name. */
export async function latestRuns(db: Database, jobs: readonly string[]): Promise<Map<string, JobRunRow>> {
  const rows = await Promise.all(jobs.map((job) => db.models.JobRun.findOne({ where: { job }, order: [['started_at', 'DESC']] })));
  return new Map(rows.flatMap((row) => (row ? [[row.job, row] as const] : [])));
}

/** When each job's newest finished run ended, by job name; a job that never finished a run is absent. */
export async function lastFinishedAt(db: Database, jobs: readonly string[]): Promise<Map<string, Date>> {
  const rows = await Promise.all(
    jobs.map((job) => db.models.JobRun.findOne({ where: { job, finished_at: { [Op.ne]: null } }, order: [['finished_at', 'DESC']] })),
  );
  return new Map(rows.flatMap((row) => (row?.finished_at ? [[row.job, row.finished_at] as const] : [])));
}
