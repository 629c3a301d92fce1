import { Op, type Attributes, type Model, type ModelStatic, type WhereOptions } from 'sequelize';
import type { Database } from '../../db/index.js';
import type { ScopedRepo } from '../../db/scoped-repo.js';
import { Tenant, type TenantTx } from '../../db/tenant.js';

// A durable outbound queue: rows before requests, like webhook deliveries. Shared by the AGS score
// posts to LMS line items (lti/scores.ts) and the OneRoster gradebook posts to the SIS
// (oneroster/gradebook-send.ts): one claim, one stale-claim recovery, one retry schedule, one replay.

/** `superseded`: a newer post of the same grade replaced it before it was sent (never sent, never retried). */
export type OutboundPostStatus = 'pending' | 'delivering' | 'succeeded' | 'dead' | 'superseded';

/** The columns every queue's rows share. */
export interface OutboundPostFields {
  id: string;
  institution_id: string;
  status: string;
  attempt_count: number;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  response_status: number | null;
  error: string | null;
}

export interface SendOutcome {
  ok: boolean;
  status: number | null;
  body: string | null;
  error: string | null;
  /** Not sent because a newer post of the same grade exists: settled as `superseded`, no retry. */
  superseded?: boolean;
}

/** Posts claimed per run at most; the next run takes the rest. */
export const POST_BATCH = 20;
/** A post still `delivering` this long after its claim was orphaned by a crash and is due again. */
export const STALE_CLAIM_MS = 2 * 60 * 1000;
/** Kept of the receiver's answer per attempt. */
export const RESPONSE_BODY_KEPT = 2048;

export interface OutboundQueue<M extends Model & OutboundPostFields, O extends SendOutcome> {
  model: ModelStatic<M>;
  /** The queue's table in an institution's transaction (the attempt is written beside the post). */
  rows: (tx: TenantTx) => ScopedRepo<M>;
  send: (post: M) => Promise<O>;
  recordAttempt: (tx: TenantTx, post: M, at: Date, outcome: O) => Promise<unknown>;
}

const where = <M extends Model>(value: Record<string, unknown>) => value as WhereOptions<Attributes<M>>;

/** A new post's delivery state: due now, never tried. */
export const freshPost = (now: Date) => ({ status: 'pending' as const, next_attempt_at: now, last_attempt_at: null, response_status: null, error: null });

/** An outcome from a send that threw: recorded like any failure. */
export function thrownOutcome(error: unknown): SendOutcome {
  return { ok: false, status: null, body: null, error: `send_error: ${error instanceof Error ? error.message.slice(0, 150) : 'unknown'}` };
}

/**
 * Sends the posts that are due, each claimed by one conditional UPDATE (so two processes never
 * send one), and records every attempt. A failure is retried on the webhooks' schedule
 * (`retrySeconds`, WEBHOOK_RETRY_SCHEDULE); after its last gap the post is `dead`, visible in the
 * portal, where it can be sent again (`replayPost`).
 */
export async function sendDuePosts<M extends Model & OutboundPostFields, O extends SendOutcome>(
  queue: OutboundQueue<M, O>,
  db: Database,
  retrySeconds: readonly number[],
  now = new Date(),
): Promise<{ sent: number; failed: number }> {
  const { model } = queue;
  // Claims a crashed process left behind are due again.
  await model.update({ status: 'pending' } as Partial<Attributes<M>>, {
    where: where<M>({ status: 'delivering', last_attempt_at: { [Op.lt]: new Date(now.getTime() - STALE_CLAIM_MS) } }),
  });
  const due = await model.findAll({
    where: where<M>({ status: 'pending', next_attempt_at: { [Op.lte]: now } }),
    order: [['next_attempt_at', 'ASC']],
    limit: POST_BATCH,
  });
  let sent = 0;
  let failed = 0;
  for (const candidate of due) {
    const claimedAt = new Date();
    const [claimed] = await model.update({ status: 'delivering', last_attempt_at: claimedAt } as Partial<Attributes<M>>, {
      // Still the row that was read (same attempt count, still due): a run that read it earlier cannot send it twice.
      where: where<M>({ id: candidate.id, status: 'pending', attempt_count: candidate.attempt_count, next_attempt_at: { [Op.lte]: now } }),
    });
    if (claimed !== 1) continue;
    let outcome: O;
    try {
      outcome = await queue.send(candidate);
    } catch (error) {
      outcome = thrownOutcome(error) as O;
    }
    const attempts = candidate.attempt_count + 1;
    const gap = retrySeconds[attempts - 1];
    const status: OutboundPostStatus = outcome.superseded ? 'superseded' : outcome.ok ? 'succeeded' : gap === undefined ? 'dead' : 'pending';
    await new Tenant(db, candidate.institution_id).inTransaction(async (tx) => {
      await queue.rows(tx).update(
        {
          status,
          attempt_count: attempts,
          last_attempt_at: claimedAt,
          next_attempt_at: status === 'pending' ? new Date(Date.now() + gap! * 1000) : null,
          response_status: outcome.status,
          error: outcome.error?.slice(0, 200) ?? null,
        } as Partial<Attributes<M>>,
        where<M>({ id: candidate.id }),
      );
      if (!outcome.superseded) await queue.recordAttempt(tx, candidate, claimedAt, outcome);
    });
    if (outcome.ok) sent += 1;
    else if (!outcome.superseded) failed += 1;
  }
  return { sent, failed };
}

/** A dead (or waiting) post sent again now: the portal's Retry. False when there is no such post. */
export async function replayPost<M extends Model & OutboundPostFields>(tenant: Tenant, rows: (tx: TenantTx) => ScopedRepo<M>, id: string): Promise<boolean> {
  const changed = await tenant.inTransaction((tx) =>
    rows(tx).update({ status: 'pending', next_attempt_at: new Date() } as Partial<Attributes<M>>, where<M>({ id, status: { [Op.in]: ['dead', 'pending'] } })),
  );
  return changed > 0;
}
