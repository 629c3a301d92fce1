import { endpointSecrets } from './secrets.js';
import type { AppContext, WebhookEngine } from '../context.js';
import type { Resolver } from './address.js';
import { claimDueDeliveries, releaseStaleClaims, recordAttempt, type Claim } from './deliveries.js';
import { postWebhook, type SendResult } from './sender.js';
import { signatureHeaders } from './signing.js';
import { readApplianceSetting } from '../settings/appliance-settings.js';

/** Requests in flight to one endpoint: a slow receiver holds two slots, never all of them. */
export const PER_ENDPOINT_IN_FLIGHT = 2;
/** Requests in flight in all. */
export const MAX_IN_FLIGHT = 16;
/**
 * A claim older than the receiver timeout plus this is orphaned (its process died mid-send) and
 * is returned to due. The margin covers recording the result after the timeout fires.
 */
export const STALE_CLAIM_MARGIN_MS = 5_000;
/** Retry times remembered for an on-time wake-up; beyond this the sweep alone finds them. */
const MAX_WAKE_TIMES = 10_000;
/** At stop, sends in flight get at most this long to finish and be recorded (the process must exit within 10 s). */
const STOP_WAIT_MAX_MS = 7_000;

export type { WebhookEngine } from '../context.js';

export interface EngineOptions {
  /** DNS for delivery; tests may inject one. */
  resolver?: Resolver;
}

/**
 * The webhook dispatcher. Everything it knows is in the table (style pattern 6): after an event's
 * transaction commits it is kicked and claims what is due; the sweep job finds retries whose time
 * has come, deliveries that waited for a paused endpoint or a suspended institution, and claims a
 * crashed process left behind. Memory holds only what is in flight right now.
 */
export function startWebhookEngine(ctx: AppContext, options: EngineOptions = {}): WebhookEngine {
  const { db, logger } = ctx;
  const settings = ctx.config.webhooks;

  const inFlight = new Map<string, number>();
  const sendingIds = new Set<string>();
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

  async function deliver(claim: Claim): Promise<void> {
    const { delivery, endpoint } = claim;
    const body = JSON.stringify(delivery.payload);
    let result: SendResult;
    try {
      const sentAt = new Date();
      result = await postWebhook({
        url: endpoint.url,
        body,
        headers: {
          'X-Service-Event-Id': delivery.event_id,
          'X-Service-Delivery-Id': delivery.id,
          ...signatureHeaders(endpointSecrets(db, endpoint, sentAt), delivery.event_id, body, Math.floor(sentAt.getTime() / 1000)),
        },
        timeoutMs: settings.timeoutMs,
        privateHosts: await readApplianceSetting(db, ctx.config, 'webhook_private_hosts'),
        resolver: options.resolver,
      });
    } catch (err) {
      // A secret that does not open (master key changed) or a malformed stored URL: a failed attempt like any other.
      logger.error({ err, delivery_id: delivery.id, endpoint_id: endpoint.id }, 'webhook could not be sent');
      result = { ok: false, status: null, body: null, timeMs: 0, error: 'send_error' };
    }
    const recorded = await recordAttempt(db, claim, result, settings.retryScheduleSeconds);
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

  function start(claim: Claim): void {
    const { id, endpoint_id: endpointId } = claim.delivery;
    inFlight.set(endpointId, (inFlight.get(endpointId) ?? 0) + 1);
    sendingIds.add(id);
    void track(
      deliver(claim)
        .catch((err: unknown) => logger.error({ err, delivery_id: id }, 'recording a webhook attempt failed'))
        .finally(() => {
          const left = (inFlight.get(endpointId) ?? 1) - 1;
          if (left > 0) inFlight.set(endpointId, left);
          else inFlight.delete(endpointId);
          sendingIds.delete(id);
          // A slot is free: the endpoint's next delivery (or another's) may go.
          kick();
        }),
    );
  }

  /** Claims and starts sends until nothing more is due or every slot is taken. */
  async function fill(): Promise<void> {
    while (!stopped) {
      const limit = MAX_IN_FLIGHT - sendingIds.size;
      if (limit <= 0) return;
      const claims = await claimDueDeliveries(db, { now: new Date(), inFlight, perEndpoint: PER_ENDPOINT_IN_FLIGHT, limit });
      if (claims.length === 0) return;
      for (const claim of claims) start(claim);
    }
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

  function kick(): void {
    if (stopped) return;
    if (pass) {
      again = true;
      return;
    }
    pass = track(
      (async () => {
        do {
          again = false;
          await fill();
        } while (again && !stopped);
      })()
        .catch((err: unknown) => logger.error({ err }, 'webhook dispatch failed'))
        .finally(() => {
          pass = null;
        }),
    );
  }

  async function releaseOrphans(): Promise<void> {
    const olderThan = new Date(Date.now() - settings.timeoutMs - STALE_CLAIM_MARGIN_MS);
    const released = await releaseStaleClaims(db, olderThan, sendingIds);
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
      if (sendingIds.size > 0) {
        // Left `delivering`: the next start returns them to due once their claim is stale.
        logger.warn({ deliveries: [...sendingIds] }, 'webhook sends still in flight at stop; they will be retried after restart');
      }
    },
  };
}
