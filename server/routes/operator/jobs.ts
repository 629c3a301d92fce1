import type { AppContext, JobControl } from '../../context.js';
import { notFound } from '../../errors.js';
import { defineRoute, type AnyPortalRoute } from '../../http/route.js';
import { presentJobForOperator } from '../../presenters/job.js';
import { z } from '../../validation/zod.js';

const outcome = z.enum(['ok', 'failed']);

export const operatorJobSchema = z.object({
  name: z.string().openapi({ example: 'prune-events' }),
  schedule: z.string().openapi({ description: 'node-cron expression, evaluated in UTC', example: '17 3 * * *' }),
  last_run: z
    .object({
      started_at: z.string(),
      finished_at: z.string().nullable().openapi({ description: 'null while the run is in progress, or when the appliance stopped during it' }),
      outcome: outcome.nullable(),
      detail: z.string().nullable().openapi({ description: "the run's counts, or the error's message" }),
    })
    .nullable(),
  next_run_at: z.string().nullable(),
  running: z.boolean(),
});

const jobParams = z.strictObject({ name: z.string().min(1).max(100) });

/** The scheduler of the running appliance; always there in the server (only the CLI has none). */
function scheduler(ctx: AppContext): JobControl {
  if (!ctx.jobs) throw new Error('the job scheduler is not running');
  return ctx.jobs;
}

/** The operator's view of the periodic jobs (docs/api.md#command-line): last and next runs, and "Run now". */
export const operatorJobRoutes: AnyPortalRoute[] = [
  defineRoute({
    method: 'get',
    path: '/operator/jobs',
    operationId: 'listJobs',
    tag: 'Operator',
    summary: 'Every periodic job with its schedule (UTC), newest run and next time',
    caller: 'operator',
    response: z.object({ items: z.array(operatorJobSchema) }),
    handler: async ({ ctx }) => ({ items: (await scheduler(ctx).list()).map(presentJobForOperator) }),
  }),
  defineRoute({
    method: 'post',
    path: '/operator/jobs/{name}/run',
    operationId: 'runJob',
    tag: 'Operator',
    summary: 'Run one job now; answers once it has finished, with its outcome',
    caller: 'operator',
    params: jobParams,
    response: z.object({ name: z.string(), outcome }),
    errors: ['not_found'],
    handler: async ({ ctx, params }) => {
      const result = await scheduler(ctx).run(params.name);
      if (!result) throw notFound('job');
      return result;
    },
  }),
];
