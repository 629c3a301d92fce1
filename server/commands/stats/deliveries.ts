import { Op, Sequelize } from 'sequelize';
import type { Tenant } from '../../db/tenant.js';
import type { DeliveryStatus } from '../../models/webhook.js';
import { findEndpoint } from '../webhooks/endpoints.js';
import { lastDays, numberOf, perBucket, type Buckets } from './windows.js';

/**
 * The deliveries the charts count, by their status now: `succeeded`, or failed (`failed` waits for
 * a retry, `dead` has none left). Pending and delivering ones have no outcome yet.
 */
const FINISHED: DeliveryStatus[] = ['succeeded', 'failed', 'dead'];

export interface DayDeliveries {
  day: string;
  succeeded: number;
  failed: number;
}

export interface DayEndpointStats extends DayDeliveries {
  /** Percent of the day's finished deliveries that succeeded, one decimal; null without any. */
  success_rate: number | null;
  /** The receiver's answer time of each delivery's latest attempt, in ms; null when none was timed. */
  average_response_ms: number | null;
  max_response_ms: number | null;
}

export interface EndpointStats {
  endpoint_id: string;
  from: string;
  to: string;
  days: DayEndpointStats[];
  totals: Omit<DayEndpointStats, 'day'>;
}

interface Tally {
  succeeded: number;
  failed: number;
  timeSum: number;
  timed: number;
  timeMax: number | null;
}

const emptyTally = (): Tally => ({ succeeded: 0, failed: 0, timeSum: 0, timed: 0, timeMax: null });

type TallyRow = Record<'finished' | 'succeeded' | 'time_sum' | 'timed' | 'time_max', string | number | null>;

const SUCCEEDED: DeliveryStatus = 'succeeded';

/**
 * Finished deliveries created in [from, to): a range of the `(institution_id, status, created_at)`
 * index read alone, or for one endpoint a range of `(institution_id, endpoint_id, created_at)` and
 * its rows (the answer times are in no index). Counted in one pass, without a GROUP BY, which would
 * sort the range's rows first.
 */
async function tallyOf(tenant: Tenant, from: Date, to: Date, endpointId: string | null): Promise<Tally> {
  const times = [
    [Sequelize.fn('SUM', Sequelize.col('response_time_ms')), 'time_sum'],
    [Sequelize.fn('COUNT', Sequelize.col('response_time_ms')), 'timed'],
    [Sequelize.fn('MAX', Sequelize.col('response_time_ms')), 'time_max'],
  ] as const;
  const [row] = (await tenant.webhookDeliveries.findAll({
    attributes: [
      [Sequelize.fn('COUNT', Sequelize.literal('*')), 'finished'],
      [Sequelize.fn('SUM', Sequelize.literal(`CASE WHEN status = '${SUCCEEDED}' THEN 1 ELSE 0 END`)), 'succeeded'],
      ...(endpointId ? times : []),
    ],
    where: { ...(endpointId ? { endpoint_id: endpointId } : {}), status: { [Op.in]: FINISHED }, created_at: { [Op.gte]: from, [Op.lt]: to } },
    raw: true,
  })) as unknown as TallyRow[];
  const finished = numberOf(row?.finished) ?? 0;
  const succeeded = numberOf(row?.succeeded) ?? 0;
  return { succeeded, failed: finished - succeeded, timeSum: numberOf(row?.time_sum) ?? 0, timed: numberOf(row?.timed) ?? 0, timeMax: numberOf(row?.time_max) };
}

/** The institution's finished deliveries per day of `buckets`, zero days included. */
export async function deliveriesByDay(tenant: Tenant, buckets: Buckets): Promise<DayDeliveries[]> {
  const tallies = await perBucket(buckets, (from, to) => tallyOf(tenant, from, to, null));
  return tallies.map((tally, i) => ({ day: buckets.labels[i]!, succeeded: tally.succeeded, failed: tally.failed }));
}

function present(tally: Tally): Omit<DayEndpointStats, 'day'> {
  const finished = tally.succeeded + tally.failed;
  return {
    succeeded: tally.succeeded,
    failed: tally.failed,
    success_rate: finished === 0 ? null : Math.round((tally.succeeded / finished) * 1000) / 10,
    average_response_ms: tally.timed === 0 ? null : Math.round(tally.timeSum / tally.timed),
    max_response_ms: tally.timeMax,
  };
}

/**
 * One endpoint's finished deliveries per UTC day of the last `days`: outcomes, success rate and
 * answer times. Average and maximum rather than percentiles: neither SQLite nor portable SQL has
 * a percentile aggregate, and computing one would mean reading every delivery's time into the process.
 */
export async function endpointStats(tenant: Tenant, endpointRef: string, days: number, now = new Date()): Promise<EndpointStats> {
  const endpoint = await findEndpoint(tenant, endpointRef);
  const buckets = lastDays(days, now);
  const tallies = await perBucket(buckets, (from, to) => tallyOf(tenant, from, to, endpoint.id));
  const totals = emptyTally();
  for (const tally of tallies) {
    totals.succeeded += tally.succeeded;
    totals.failed += tally.failed;
    totals.timeSum += tally.timeSum;
    totals.timed += tally.timed;
    if (tally.timeMax !== null) totals.timeMax = Math.max(totals.timeMax ?? 0, tally.timeMax);
  }
  return {
    endpoint_id: endpoint.id,
    from: buckets.bounds[0]!.toISOString(),
    to: buckets.bounds.at(-1)!.toISOString(),
    days: tallies.map((tally, i) => ({ day: buckets.labels[i]!, ...present(tally) })),
    totals: present(totals),
  };
}
