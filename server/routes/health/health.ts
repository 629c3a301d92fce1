import { healthOf } from '../../http/health.js';
import { defineRoute, RawResponse, type AnyRoute } from '../../http/route.js';
import { z } from '../../validation/zod.js';

/**
 * `GET /healthz` for monitors and service managers (docs/install.md#running-as-a-service): no key,
 * never cached. 200 while the database answers, 503 when it cannot be read; says the process's
 * role. Served by api, worker and all-in-one processes alike.
 */
export const healthRoutes: AnyRoute[] = [
  defineRoute({
    caller: 'anyone',
    method: 'get',
    path: '/healthz',
    operationId: 'healthCheck',
    summary: 'Whether this process and its database answer',
    tag: 'Health',
    query: z.looseObject({}),
    produces: 'application/json',
    response: z.unknown(),
    handler: async ({ ctx }) => {
      const { ok, body } = await healthOf(ctx);
      return new RawResponse((res) => {
        res
          .status(ok ? 200 : 503)
          .set('Cache-Control', 'no-store')
          .json(body);
      });
    },
  }),
];
