import { rowLockedTransaction } from '../db/postgres.js';
import { newId } from '../ids.js';
import { endpointSecrets } from './secrets.js';
import type { AppContext, WebhookEngine } from '../context.js';
import type { PrivateHosts, Resolver } from '../outbound/address.js';
import { claimDueIn, endSenderLease, releaseStaleClaims, renewSenderLease, type Claim } from './claims.js';
import { recordAttemptsIn, type FinishedSend, type RecordedAttempt } from './outcomes.js';
import { postWebhook, type SendResult } from './sender.js';
import { signatureHeaders } from './signing.js';
import { readApplianceSetting } from '../settings/appliance-settings.js';

/** Requests in flight to one endpoint: a slow receiver holds sixteen slots, never all of them. */
export const PER_ENDPOINT_IN_FLIGHT = 16;
/** Requests in flight in all. */
export const MAX_IN_FLIGHT = 64;
/** Sends finished but not yet recorded, at most; claiming pauses beyond it (the database is behind). */
const MAX_UNRECORDED = 4 * MAX_IN_FLIGHT;
/** Results recorded per transaction, at most. */
const RECORD_BATCH = 200;
/**
 * A claim older than the receiver timeout plus this is orphaned (its process died mid-send) and
 * is returned to due. The margin covers recording the result after the timeout fires.
 */
export const STALE_CLAIM_MARGIN_MS = 5_000;
/** Retry times remembered for an on-time wake-up; beyond this the sweep alone finds them. */
const MAX_WAKE_TIMES = 10_000;
/** At stop, sends in flight get at most this long to finish and be recorded (the process must exit within 10 s). */
const STOP_WAIT_MAX_MS = 7_000;
/** How often a sending process renews its lease; a claim is released only once its lease is older than the stale-claim age. */
const LEASE_RENEW_MS = 1_000;

export type { WebhookEngine } from '../context.js';

export interface EngineOptions {
  /** DNS for delivery; tests may inject one. */
  resolver?: Resolver;
}

/**
 * The webhook dispatcher. Everything it knows is in the table: after an event's
 * transaction commits it is kicked and claims what is due; the sweep job finds retries whose time
 * has come, deliveries that waited for a paused endpoint or a suspended institution, and claims a
 * crashed process left behind. Memory holds only what is in flight right now.
 */
export function startWebhookEngine(ctx: AppContext, options: EngineOptions = {}): WebhookEngine {
  const { db, logger } = ctx;
  const settings = ctx.config.webhooks;

  /** HTTP requests in flight, per endpoint and in all. */
  const inFlight = new Map<string, number>();
  let sending = 0;
  /** Claimed deliveries not yet recorded (in flight, or finished and waiting for the recorder). */
  const claimedIds = new Set<string>();
  // This process's lease: renewed every second, so no other process takes its claims while it lives.
  const sender = newId('snd');
  const renewLease = () =>
    renewSenderLease(db, sender).catch((err: unknown) => {
      if (!stopped) logger.warn({ err }, 'webhook sender lease could not be renewed');
    });
  void renewLease();
  const leaseTimer = setInterval(() => void renewLease(), LEASE_RENEW_MS);
  leaseTimer.unref();
  /** Finished sends waiting to be recorded, in the order they finished. */
  const finished: FinishedSend[] = [];
  const background = new Set<Promise<unknown>>();
  let pass: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  // When scheduled retries fall due, so they go out on time rather than at the next sweep. Only a
  // hint: the sweep reads the table and finds every due retry whether or not a wake-up was armed.
  const wakeTimes = new Set<number>();
  let wakeTimer: NodeJS.Timeout | null = null;
  let wakeTimerAt = Infinity;

  const track = <T>(promise: Promise<T>): Promise<T> => {
    background.add(promise);
    void promise.finally(() => background.delete(promise)).catch(() => undefined);
    return promise;
  };

  async function send(claim: Claim, privateHosts: PrivateHosts): Promise<SendResult> {
    const { delivery, endpoint } = claim;
    const body = JSON.stringify(delivery.payload);
    try {
      const sentAt = new Date();
      return await postWebhook({
        url: endpoint.url,
        body,
        headers: {
          'X-Service-Event-Id': delivery.event_id,
          'X-Service-Delivery-Id': delivery.id,
          ...signatureHeaders(endpointSecrets(db, endpoint, sentAt), delivery.event_id, body, Math.floor(sentAt.getTime() / 1000)),
        },
        timeoutMs: settings.timeoutMs,
        privateHosts,
        resolver: options.resolver,
      });
    } catch (err) {
      // A secret that does not open (master key changed) or a malformed stored URL: a failed attempt like any other.
      logger.error({ err, delivery_id: delivery.id, endpoint_id: endpoint.id }, 'webhook could not be sent');
      return { ok: false, status: null, body: null, timeMs: 0, error: 'send_error' };
    }
  }

  function report({ claim, result }: FinishedSend, recorded: RecordedAttempt): void {
    const { delivery, endpoint } = claim;
    const log = {
      delivery_id: delivery.id,
      endpoint_id: endpoint.id,
      event_type: delivery.event_type,
      response_status: result.status,
      error: result.error,
      time_ms: result.timeMs,
    };
    if (recorded.kind !== 'recorded') {
      logger.warn({ ...log, recorded: recorded.kind }, 'webhook attempt finished after its claim was released');
      return;
    }
    const { delivery: next, endpoint: endpointChange } = recorded.outcome;
    if (next.status === 'failed' && next.next_attempt_at) wakeAt(next.next_attempt_at);
    if (next.status === 'succeeded') logger.info({ ...log, attempt: next.attempt_count }, 'webhook delivered');
    else logger.warn({ ...log, attempt: next.attempt_count, status: next.status, next_attempt_at: next.next_attempt_at }, 'webhook attempt failed');
    if (endpointChange?.status === 'disabled') {
      logger.warn(
        { endpoint_id: endpoint.id, disabled_reason: endpointChange.disabled_reason, consecutive_failures: endpointChange.consecutive_failures },
        'webhook endpoint disabled',
      );
    }
  }

  function start(claim: Claim, privateHosts: PrivateHosts): void {
    const { id, endpoint_id: endpointId } = claim.delivery;
    inFlight.set(endpointId, (inFlight.get(endpointId) ?? 0) + 1);
    sending += 1;
    claimedIds.add(id);
    void track(
      send(claim, privateHosts).then((result) => {
        const left = (inFlight.get(endpointId) ?? 1) - 1;
        if (left > 0) inFlight.set(endpointId, left);
        else inFlight.delete(endpointId);
        sending -= 1;
        finished.push({ claim, result });
        // The result is recorded, and a slot is free for the endpoint's next delivery (or another's).
        kick();
      }),
    );
  }

  /**
   * One step of the pump, in one write transaction: records what finished since the last step
   * and claims what the free slots can take (docs/decisions/webhook-throughput.md). Whatever
   * finishes while a step runs goes into the next, so the batches grow with the load. After stop,
   * only recording goes on. Answers whether there was anything to do.
   */
  async function step(): Promise<boolean> {
    const batch = finished.splice(0, RECORD_BATCH);
    const limit = stopped ? 0 : Math.min(MAX_IN_FLIGHT - sending, MAX_UNRECORDED - claimedIds.size + batch.length);
    if (batch.length === 0 && limit <= 0) return false;
    const now = new Date();
    let claims: Claim[];
    try {
      const done = await db.sequelize.transaction(rowLockedTransaction(db.sequelize), async (transaction) => ({
        recorded: await recordAttemptsIn(db, transaction, batch, settings.retryScheduleSeconds, now),
        claims: await claimDueIn(db, transaction, { now, sender, inFlight, perEndpoint: PER_ENDPOINT_IN_FLIGHT, limit }),
      }));
      batch.forEach((item, index) => report(item, done.recorded[index]!));
      claims = done.claims;
    } catch (err) {
      // Left `delivering`: the stale-claim release makes them due again.
      if (batch.length > 0) logger.error({ err, deliveries: batch.map((item) => item.claim.delivery.id) }, 'recording webhook attempts failed');
      throw err;
    } finally {
      for (const item of batch) claimedIds.delete(item.claim.delivery.id);
    }
    if (claims.length > 0) {
      // The setting as it is now, for this batch: checked again at every claim.
      const privateHosts = await readApplianceSetting(db, ctx.config, 'outbound_private_hosts');
      for (const claim of claims) start(claim, privateHosts);
    }
    return batch.length > 0 || claims.length > 0;
  }

  function armWake(): void {
    let next = Infinity;
    for (const at of wakeTimes) next = Math.min(next, at);
    if (next === wakeTimerAt) return;
    if (wakeTimer) clearTimeout(wakeTimer);
    wakeTimer = null;
    wakeTimerAt = next;
    if (next === Infinity || stopped) return;
    wakeTimer = setTimeout(
      () => {
        wakeTimer = null;
        wakeTimerAt = Infinity;
        const now = Date.now();
        for (const at of wakeTimes) if (at <= now) wakeTimes.delete(at);
        kick();
        armWake();
      },
      Math.max(0, next - Date.now()),
    );
    wakeTimer.unref();
  }

  function wakeAt(when: Date): void {
    if (stopped || wakeTimes.size >= MAX_WAKE_TIMES) return;
    wakeTimes.add(when.getTime());
    armWake();
  }

  /** Runs the pump until a step finds nothing to do; a kick during a run asks for one more. */
  function kick(): void {
    if (stopped && finished.length === 0) return;
    if (pass) {
      again = true;
      return;
    }
    pass = track(
      (async () => {
        do {
          again = false;
          while (await step()) {
            // more results to record or slots to fill
          }
        } while (again);
      })()
        .catch((err: unknown) => logger.error({ err }, 'webhook dispatch failed'))
        .finally(() => {
          pass = null;
        }),
    );
  }

  async function releaseOrphans(): Promise<void> {
    const olderThan = new Date(Date.now() - settings.timeoutMs - STALE_CLAIM_MARGIN_MS);
    const released = await releaseStaleClaims(db, olderThan, claimedIds, sender);
    if (released.length > 0) logger.warn({ deliveries: released }, 'webhook deliveries interrupted mid-send are due again');
  }

  async function sweep(): Promise<void> {
    if (stopped) return;
    await track(releaseOrphans());
    kick();
    await pass;
  }

  const listener = () => kick();
  db.committedEventListeners.add(listener);
  // What waited while the appliance was off (and claims a crash left behind) goes out now.
  void sweep().catch((err: unknown) => logger.error({ err }, 'webhook sweep at start failed'));

  return {
    kick,
    sweep,
    stop: async () => {
      stopped = true;
      db.committedEventListeners.delete(listener);
      if (wakeTimer) clearTimeout(wakeTimer);
      wakeTimes.clear();
      const deadline = Date.now() + Math.min(settings.timeoutMs + 1_000, STOP_WAIT_MAX_MS);
      // Sends started by a pass that was claiming when we stopped join `background` while we wait.
      while (background.size > 0 && Date.now() < deadline) {
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<void>((resolve) => {
          timer = setTimeout(resolve, deadline - Date.now());
        });
        await Promise.race([Promise.allSettled([...background]), timeout]);
        clearTimeout(timer);
      }
      if (claimedIds.size > 0) {
        // Left `delivering`: the next start returns them to due once their claim is stale.
        logger.warn({ deliveries: [...claimedIds] }, 'webhook sends still in flight at stop; they will be retried after restart');
      }
      clearInterval(leaseTimer);
      await endSenderLease(db, sender).catch((err: unknown) => logger.warn({ err }, 'webhook sender lease could not be ended'));
    },
  };
}
