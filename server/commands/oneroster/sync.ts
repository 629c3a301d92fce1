import type { Config } from '../../config.js';
import type { Database } from '../../db/index.js';
import { Tenant } from '../../db/tenant.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import type { OneRosterConnectionRow, OneRosterRunRow, OneRosterRunTrigger, OneRosterSyncKind } from '../../models/oneroster.js';
import { OneRosterClient, type Roster } from './client.js';
import { createCsvConnection, requireConnection, sisSettings } from './connections.js';
import { readOneRosterZip } from './csv.js';
import { SisError } from './http.js';
import { applyPlan, createPlannedPeople, PEOPLE_PER_TRANSACTION, type CreatedPeople } from './apply.js';
import { guardPlan } from './guard.js';
import { countPlan, type PlanCounts } from './plan-counts.js';
import { planSync } from './plan.js';

export interface SyncOptions {
  dryRun?: boolean;
  /** Applies a sync the guard would hold back. */
  confirm?: boolean;
  /** A full sync even when a delta is possible (a full sync also suspends what the SIS no longer lists). */
  full?: boolean;
  trigger: OneRosterRunTrigger;
}

/** What `oneroster sync` prints and the portal shows: the run with its counts. */
export interface SyncResult extends PlanCounts {
  run_id: string;
  kind: OneRosterSyncKind;
  dry_run: boolean;
  outcome: OneRosterRunRow['outcome'];
  held_back: boolean;
  reason: string | null;
}

const emptyCounts = (): PlanCounts => ({
  created: { students: 0, faculty: 0, groups: 0 },
  updated: { students: 0, faculty: 0, groups: 0 },
  suspended: { students: 0, faculty: 0, groups: 0 },
  reactivated: { students: 0, faculty: 0 },
  memberships: { added: 0, removed: 0 },
  skipped: 0,
});

export function runResult(run: OneRosterRunRow): SyncResult {
  return {
    run_id: run.id,
    kind: run.kind,
    dry_run: run.dry_run,
    outcome: run.outcome,
    ...emptyCounts(),
    ...((run.counts as Partial<PlanCounts> | null) ?? {}),
    held_back: run.outcome === 'held_back',
    reason: run.reason,
  };
}

/**
 * A running sync writes its heartbeat this often; a run marked running whose heartbeat is older
 * than SYNC_STOPPED_AFTER_MS was cut short (its process stopped) and is recorded as failed by the
 * next sync of the connection, which then goes ahead. Runs recorded before heartbeats existed
 * count as stopped half an hour after they started.
 */
export const SYNC_HEARTBEAT_MS = 15_000;
export const SYNC_STOPPED_AFTER_MS = 4 * SYNC_HEARTBEAT_MS;
const LEGACY_RUNNING_FOR_AT_MOST_MS = 30 * 60 * 1000;

const CUT_SHORT = 'Cut short: the process running this sync stopped before it finished (nothing after its last step was written).';

/** A full sync at least this often even on a schedule of deltas: only a full sync notices what the SIS dropped. */
const FULL_SYNC_EVERY_MS = 24 * 60 * 60 * 1000;

/**
 * One sync of the institution's roster (docs/decisions/oneroster.md). The run is recorded first;
 * the roster is fetched (every page) before anything is written, so a SIS failing part way
 * changes nothing; then the plan is made and guarded. It is applied in bounded transactions: new
 * people PEOPLE_PER_TRANSACTION at a time, each with its links to the SIS, then every other change
 * and the watermark in one. A sync cut short between them leaves the people it made, linked, and
 * the next sync (which re-fetches from the old watermark) completes the rest without making them
 * twice; the run says what happened. A dry run makes the same plan and writes nothing but its run.
 */
export async function syncRoster(db: Database, config: Config, institutionId: string, options: SyncOptions): Promise<SyncResult> {
  const tenant = new Tenant(db, institutionId);
  const connection = await requireConnection(tenant);
  if (connection.source === 'csv') {
    throw new AppError(
      'conflict',
      "This institution's roster comes from OneRoster CSV files: import the SIS's newest zip (portal, or `cli oneroster import`), or connect the SIS's REST API first.",
    );
  }
  const dueFull = !connection.last_full_sync_at || Date.now() - connection.last_full_sync_at.getTime() > FULL_SYNC_EVERY_MS;
  const kind: OneRosterSyncKind = options.full || !connection.delta_watermark || (options.trigger === 'scheduled' && dueFull) ? 'full' : 'delta';
  return runSync(db, tenant, connection, kind, options, async () => {
    const client = new OneRosterClient(await sisSettings(db, config, tenant, connection));
    return client.fetchRoster(kind === 'delta' ? connection.delta_watermark : null);
  });
}

export interface CsvImportOptions {
  dryRun?: boolean;
  confirm?: boolean;
  trigger: 'cli_csv' | 'portal_csv';
}

/**
 * A OneRoster CSV zip imported (docs/lms.md#oneroster-csv-a-sis-without-a-rest-api): read whole first (an
 * unreadable row is a 422 naming its file and line, and nothing is recorded or changed), then the
 * same run, plan, guard and bounded transactions as a REST sync, on the institution's connection
 * (one made for CSV imports when it has none). Bulk files are a full sync (what they leave out is
 * suspended), delta files a delta.
 */
export async function importRosterCsv(db: Database, institutionId: string, zip: Uint8Array, options: CsvImportOptions): Promise<SyncResult> {
  const read = readOneRosterZip(zip);
  const tenant = new Tenant(db, institutionId);
  const connection = await tenant.inTransaction(async (tx) => (await tx.onerosterConnections.findOne()) ?? createCsvConnection(tx, read.version));
  return runSync(db, tenant, connection, read.kind, { ...options, full: read.kind === 'full' }, async () => read.roster);
}

/** One run of a sync whose roster `fetch` gets (every page, before anything is written). */
async function runSync(
  db: Database,
  tenant: Tenant,
  connection: OneRosterConnectionRow,
  kind: OneRosterSyncKind,
  options: SyncOptions | (CsvImportOptions & { full: boolean }),
  fetch: () => Promise<Roster>,
): Promise<SyncResult> {
  const institutionId = tenant.institutionId;
  const dryRun = options.dryRun ?? false;
  const run = await tenant.inTransaction(async (tx) => {
    // One sync at a time per connection (a double click, the schedule meeting a manual run). A run
    // left `running` by a process that stopped has no fresh heartbeat: it is recorded as cut short.
    const now = Date.now();
    for (const running of await tx.onerosterRuns.findAll({ where: { connection_id: connection.id, outcome: 'running' } })) {
      const alive = running.heartbeat_at
        ? running.heartbeat_at.getTime() > now - SYNC_STOPPED_AFTER_MS
        : running.started_at.getTime() > now - LEGACY_RUNNING_FOR_AT_MOST_MS;
      if (alive)
        throw new AppError('conflict', `A sync of this connection is already running (started ${running.started_at.toISOString()}); wait for it to finish.`);
      await tx.onerosterRuns.update({ outcome: 'failed', reason: CUT_SHORT, finished_at: new Date(now) }, { id: running.id });
    }
    return tx.onerosterRuns.create({
      id: newId('orr'),
      connection_id: connection.id,
      trigger: options.trigger,
      kind,
      dry_run: dryRun,
      outcome: 'running',
      counts: null,
      reason: null,
      started_at: new Date(now),
      heartbeat_at: new Date(now),
      finished_at: null,
    });
  });
  // The heartbeat: one statement on the run's row, outside the institution's write turn, so a long
  // transaction of this sync (or another writer's) never makes a live sync look stopped.
  const heartbeat = setInterval(() => {
    db.models.OneRosterRun.update({ heartbeat_at: new Date() }, { where: { id: run.id, institution_id: institutionId } }).catch(() => undefined);
  }, SYNC_HEARTBEAT_MS);
  heartbeat.unref();
  const finish = async (outcome: OneRosterRunRow['outcome'], counts: PlanCounts | null, reason: string | null) => {
    await tenant.inTransaction((tx) =>
      tx.onerosterRuns.update(
        { outcome, counts: counts as Record<string, unknown> | null, reason: reason?.slice(0, 1000) ?? null, finished_at: new Date() },
        { id: run.id },
      ),
    );
    run.set({ outcome, counts: counts as Record<string, unknown> | null, reason: reason?.slice(0, 1000) ?? null });
    return runResult(run);
  };
  try {
    const roster = await fetch();
    const decided = await tenant.inTransaction(async (tx) => {
      const fresh = (await tx.onerosterConnections.findById(connection.id))!;
      const plan = await planSync(tx, fresh, roster, kind);
      const counts = countPlan(plan);
      if (dryRun) {
        const verdict = await guardPlan(tx, fresh, plan);
        return { outcome: 'dry_run' as const, counts, reason: verdict.held ? `A real sync would be held back: ${verdict.reason}` : null };
      }
      if (!options.confirm) {
        const verdict = await guardPlan(tx, fresh, plan);
        if (verdict.held) return { outcome: 'held_back' as const, counts, reason: `${verdict.reason} Nothing was changed; confirm to apply it.` };
      }
      return { outcome: 'apply' as const, counts, plan };
    });
    if (decided.outcome !== 'apply') return await finish(decided.outcome, decided.counts, decided.reason);
    const { plan, counts } = decided;
    // New people in transactions of their own, each with its links: the rest of the institution's
    // writers take turns between them, and a sync cut short leaves them linked for the next one.
    const created: CreatedPeople = new Map();
    for (let from = 0; from < plan.createPeople.length; from += PEOPLE_PER_TRANSACTION) {
      const fresh = (await tenant.onerosterConnections.findById(connection.id))!;
      await tenant.inTransaction((tx) => createPlannedPeople(tx, fresh, plan, from, from + PEOPLE_PER_TRANSACTION, created));
    }
    await tenant.inTransaction(async (tx) => {
      const fresh = (await tx.onerosterConnections.findById(connection.id))!;
      await applyPlan(tx, fresh, plan, created);
      const watermark = plan.watermark && (!fresh.delta_watermark || plan.watermark > fresh.delta_watermark) ? plan.watermark : fresh.delta_watermark;
      await fresh.update({ delta_watermark: watermark, ...(kind === 'full' ? { last_full_sync_at: new Date() } : {}) }, { transaction: tx.tx });
    });
    return await finish('applied', counts, null);
  } catch (error) {
    const reason = error instanceof SisError ? error.message : `The sync failed: ${error instanceof Error ? error.message : String(error)}`;
    return finish('failed', null, reason);
  } finally {
    clearInterval(heartbeat);
  }
}

/** The institution's runs, newest first. */
export async function listRuns(tenant: Tenant, limit: number): Promise<OneRosterRunRow[]> {
  return tenant.onerosterRuns.findAll({
    order: [
      ['started_at', 'DESC'],
      ['id', 'DESC'],
    ],
    limit,
  });
}
