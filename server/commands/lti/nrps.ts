import { Op } from 'sequelize';
import type { Database } from '../../db/index.js';
import { Tenant } from '../../db/tenant.js';
import { AppError, notFound, validationError } from '../../errors.js';
import { newId } from '../../ids.js';
import type { LtiNrpsRunRow, LtiNrpsRunTrigger } from '../../models/lti-nrps.js';
import type { LtiPlatformRow } from '../../models/lti.js';
import type { LtiResourceLinkRow } from '../../models/lti-launch.js';
import { CLAIM, isTeacher } from './claims.js';
import { applyMembersPlan } from './nrps-apply.js';
import { emptyMembersCounts, guardMembersPlan, planMembers, type MembersCounts } from './nrps-plan.js';
import { NrpsError, readContextMembers } from './nrps-read.js';
import type { OutboundRules } from './platform-keys.js';

// LTI Names and Role Provisioning Services 2.0 (docs/lms.md#names-and-role-provisioning-class-lists-from-the-lms,
// docs/decisions/nrps.md): the context's class list fills the linked exam's group, at an
// instructor's launch and on demand, with the OneRoster sync's plan, dry run and guard.

export interface MembersSyncOptions {
  dryRun?: boolean;
  /** Applies a sync the guard would hold back. */
  confirm?: boolean;
  trigger: LtiNrpsRunTrigger;
  /** How the appliance reaches the LMS: the same rules as AGS scores. */
  rules: OutboundRules;
}

/** What `lti members sync` prints and the portal answers: `oneroster sync`'s object, with the link and its group. */
export interface MembersSyncResult extends MembersCounts {
  run_id: string;
  link_id: string;
  group_id: string | null;
  kind: 'full';
  dry_run: boolean;
  outcome: LtiNrpsRunRow['outcome'];
  held_back: boolean;
  reason: string | null;
  trigger: LtiNrpsRunTrigger;
  started_at: string;
  finished_at: string | null;
}

export function membersRunResult(run: LtiNrpsRunRow): MembersSyncResult {
  return {
    run_id: run.id,
    link_id: run.resource_link_id,
    group_id: run.group_id,
    kind: 'full',
    dry_run: run.dry_run,
    outcome: run.outcome,
    ...emptyMembersCounts(),
    ...((run.counts as Partial<MembersCounts> | null) ?? {}),
    held_back: run.outcome === 'held_back',
    reason: run.reason,
    trigger: run.trigger,
    started_at: run.started_at.toISOString(),
    finished_at: run.finished_at ? run.finished_at.toISOString() : null,
  };
}

/** A running sync's heartbeat; one whose heartbeat is older than SYNC_STOPPED_AFTER_MS was cut short. */
const SYNC_HEARTBEAT_MS = 15_000;
const SYNC_STOPPED_AFTER_MS = 4 * SYNC_HEARTBEAT_MS;
/** An instructor's launch starts a sync only when the link had none (other than dry runs) this long. */
export const LAUNCH_SYNC_EVERY_MS = 5 * 60 * 1000;

/** The link by its row id (`ltl_…`) or the LMS's resource link id (unique within the institution, else the row id is asked for). */
export async function findMembersLink(tenant: Tenant, ref: string): Promise<LtiResourceLinkRow> {
  const byId = await tenant.ltiResourceLinks.findById(ref);
  if (byId) return byId;
  const byLms = await tenant.ltiResourceLinks.findAll({ where: { resource_link_id: ref }, limit: 2 });
  if (byLms.length > 1) throw validationError([{ path: 'link', message: `Several platforms have a resource link "${ref}": give the link's id (ltl_…).` }]);
  if (byLms.length === 0) throw notFound('LTI resource link');
  return byLms[0]!;
}

/**
 * One class list sync of a link. The run is recorded first; every page of the class list is read
 * before anything is written (a platform failing part way changes nothing); the plan is made and
 * guarded in one transaction; it is applied in bounded transactions (new people
 * MEMBERS_PER_TRANSACTION at a time with their subjects, then the rest). A dry run writes only its
 * run. A platform's refusal (a bad or expired token, an error page) is a `failed` run with the
 * reason, not an error; a link without a class list is `409 nrps_not_offered`.
 */
export async function syncContextMembers(db: Database, institutionId: string, linkRef: string, options: MembersSyncOptions): Promise<MembersSyncResult> {
  const tenant = new Tenant(db, institutionId);
  const link = await findMembersLink(tenant, linkRef);
  if (!link.memberships_url) {
    throw new AppError(
      'nrps_not_offered',
      `The LMS has not offered a class list for resource link ${link.resource_link_id}: an instructor's launch that carries the Names and Role Provisioning claim stores it (turn the service on for the tool in the LMS, then open the activity as its teacher).`,
    );
  }
  if (!link.exam_id) throw new AppError('conflict', `The LMS link ${link.resource_link_id} is not linked to an exam yet: link it first.`);
  const platform = await tenant.ltiPlatforms.findById(link.platform_id);
  if (!platform) throw notFound('platform');
  const dryRun = options.dryRun ?? false;
  const run = await tenant.inTransaction(async (tx) => {
    const now = Date.now();
    // One sync of a link at a time; a run left `running` by a process that stopped has no fresh heartbeat.
    for (const running of await tx.ltiNrpsRuns.findAll({ where: { resource_link_id: link.id, outcome: 'running' } })) {
      if ((running.heartbeat_at ?? running.started_at).getTime() > now - SYNC_STOPPED_AFTER_MS) {
        throw new AppError(
          'conflict',
          `A class list sync of this link is already running (started ${running.started_at.toISOString()}); wait for it to finish.`,
        );
      }
      await tx.ltiNrpsRuns.update(
        { outcome: 'failed', reason: 'Cut short: the process running this sync stopped.', finished_at: new Date(now) },
        { id: running.id },
      );
    }
    return tx.ltiNrpsRuns.create({
      id: newId('lnr'),
      resource_link_id: link.id,
      trigger: options.trigger,
      dry_run: dryRun,
      outcome: 'running',
      counts: null,
      reason: null,
      group_id: null,
      started_at: new Date(now),
      heartbeat_at: new Date(now),
      finished_at: null,
    });
  });
  const heartbeat = setInterval(() => {
    db.models.LtiNrpsRun.update({ heartbeat_at: new Date() }, { where: { id: run.id, institution_id: institutionId } }).catch(() => undefined);
  }, SYNC_HEARTBEAT_MS);
  heartbeat.unref();
  const finish = async (outcome: LtiNrpsRunRow['outcome'], counts: MembersCounts | null, reason: string | null, groupId: string | null) => {
    const values = {
      outcome,
      counts: counts as Record<string, unknown> | null,
      reason: reason?.slice(0, 1000) ?? null,
      group_id: groupId,
      finished_at: new Date(),
    };
    await tenant.inTransaction((tx) => tx.ltiNrpsRuns.update(values, { id: run.id }));
    run.set(values);
    return membersRunResult(run);
  };
  try {
    const roster = await readContextMembers(db, platform, link.memberships_url, options.rules);
    const decided = await tenant.inTransaction(async (tx) => {
      const fresh = (await tx.ltiResourceLinks.findById(link.id))!;
      const plan = await planMembers(tx, platform, fresh, roster);
      const groupId = 'id' in plan.group ? plan.group.id : null;
      const verdict = dryRun || !options.confirm ? await guardMembersPlan(tx, plan) : { held: false, reason: null };
      if (dryRun) return { outcome: 'dry_run' as const, plan, groupId, reason: verdict.held ? `A real sync would be held back: ${verdict.reason}` : null };
      if (verdict.held) return { outcome: 'held_back' as const, plan, groupId, reason: `${verdict.reason} Nothing was changed; confirm to apply it.` };
      return { outcome: 'apply' as const, plan, groupId, reason: null, examId: fresh.exam_id! };
    });
    if (decided.outcome !== 'apply') return await finish(decided.outcome, decided.plan.counts, decided.reason, decided.groupId);
    const groupId = await applyMembersPlan(tenant, platform, link.id, decided.examId, decided.plan);
    return await finish('applied', decided.plan.counts, null, groupId);
  } catch (error) {
    const reason =
      error instanceof NrpsError || error instanceof AppError
        ? error.message
        : `The class list sync failed: ${error instanceof Error ? error.message : String(error)}`;
    return finish('failed', null, reason, null);
  } finally {
    clearInterval(heartbeat);
  }
}

/** The link's runs, newest first. */
export function listMembersRuns(tenant: Tenant, linkId: string, limit = 20): Promise<LtiNrpsRunRow[]> {
  return tenant.ltiNrpsRuns.findAll({
    where: { resource_link_id: linkId },
    order: [
      ['started_at', 'DESC'],
      ['id', 'DESC'],
    ],
    limit,
  });
}

/** The newest run of each of these links (for the portal's links table). */
export async function lastMembersRuns(tenant: Tenant, linkIds: readonly string[]): Promise<Map<string, LtiNrpsRunRow>> {
  const last = new Map<string, LtiNrpsRunRow>();
  if (linkIds.length === 0) return last;
  const runs = await tenant.ltiNrpsRuns.findAll({ where: { resource_link_id: { [Op.in]: [...linkIds] } }, order: [['started_at', 'DESC']], limit: 2000 });
  for (const run of runs) if (!last.has(run.resource_link_id)) last.set(run.resource_link_id, run);
  return last;
}

/** Syncs started by launches and still going, per database: a graceful stop (or a test) can wait for them. */
const inFlight = new WeakMap<Database, Set<Promise<void>>>();

/** Resolves when the class list syncs that launches started have ended. */
export async function settleMemberSyncs(db: Database): Promise<void> {
  await Promise.all([...(inFlight.get(db) ?? [])]);
}

/** The claim's memberships URL when it offers NRPS 2.0 (service_versions names "2.0", or names none). */
function membershipsUrlOf(claims: Record<string, unknown>): string | null {
  const claim = claims[CLAIM.namesRoleService] as { context_memberships_url?: unknown; service_versions?: unknown } | undefined;
  const url = claim?.context_memberships_url;
  if (typeof url !== 'string' || url.length > 2048 || !URL.canParse(url)) return null;
  if (!['https:', 'http:'].includes(new URL(url).protocol)) return null;
  if (Array.isArray(claim!.service_versions) && !claim!.service_versions.includes('2.0')) return null;
  return url;
}

export interface LaunchHookLog {
  warn(details: Record<string, unknown>, message: string): void;
}

/**
 * Called by a resource link launch of an instructor (LTI role Instructor…), after the link is
 * known: stores the context's memberships URL and title from the launch's NRPS claim on the
 * link, and when the link is tied to an exam and had no sync (other than a dry run) in the last
 * LAUNCH_SYNC_EVERY_MS, syncs its class list. All of it runs in the background: it never delays
 * or fails the launch. A platform's refusal is recorded on the run; anything else goes to `log`.
 */
export function afterInstructorLaunch(
  db: Database,
  platform: LtiPlatformRow,
  claims: Record<string, unknown>,
  link: LtiResourceLinkRow,
  rules: OutboundRules,
  log?: LaunchHookLog,
): void {
  const url = membershipsUrlOf(claims);
  if (!url || !isTeacher(claims[CLAIM.roles])) return;
  const context = claims[CLAIM.context] as { title?: unknown } | undefined;
  const title = typeof context?.title === 'string' && context.title.trim() ? context.title.trim().slice(0, 500) : null;
  const work = (async () => {
    const tenant = new Tenant(db, platform.institution_id);
    const due = await tenant.inTransaction(async (tx) => {
      const row = await tx.ltiResourceLinks.findById(link.id);
      if (!row) return false;
      if (row.memberships_url !== url || (title && row.context_title !== title)) {
        await tx.ltiResourceLinks.update({ memberships_url: url, ...(title ? { context_title: title } : {}) }, { id: row.id });
      }
      if (!row.exam_id) return false;
      const recent = await tx.ltiNrpsRuns.count({
        where: { resource_link_id: row.id, dry_run: false, started_at: { [Op.gt]: new Date(Date.now() - LAUNCH_SYNC_EVERY_MS) } },
      });
      return recent === 0;
    });
    if (due) await syncContextMembers(db, platform.institution_id, link.id, { trigger: 'launch', rules });
  })().catch((error: unknown) => {
    // A sync already running (a second launch at the same moment) is not a problem.
    if (error instanceof AppError && error.code === 'conflict') return;
    log?.warn({ err: error, link_id: link.id }, 'The class list sync started by an instructor launch failed');
  });
  let running = inFlight.get(db);
  if (!running) inFlight.set(db, (running = new Set()));
  running.add(work);
  void work.finally(() => running.delete(work));
}
