import { AppError } from '../../errors.js';
import type { HttpMethod } from '../../http/route.js';
import { z } from '../../http/zod.js';
import { definePortalRoute, type MemberInput, type PortalRoute } from '../route.js';

type Empty = z.ZodObject<{}>;

/** Institution data is the admin's: developers see keys, webhooks and deliveries only (Authentication 8). */
const ADMIN_ONLY = ['admin'] as const;

/** The `{id}` of every data path: the institution. */
export const institutionId = z.string().min(1).max(40);

interface DataRouteDefinition<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType> {
  method: HttpMethod;
  path: `/institutions/{id}/${string}`;
  summary: string;
  params: P;
  /** The public operation's query schema: the same filters and paging. */
  query?: Q;
  body?: B;
  response: R;
  handler: (input: MemberInput<z.output<P>, z.output<B>, z.output<Q>>) => Promise<z.input<R>>;
}

/**
 * A portal operation on institution data, mirroring a public one: admins only, and, like an API
 * key, only while the institution is approved (general rule 9).
 */
export function dataRoute<P extends z.ZodType, Q extends z.ZodType = Empty, B extends z.ZodType = Empty, R extends z.ZodType = z.ZodType>(
  definition: DataRouteDefinition<P, Q, B, R>,
): PortalRoute {
  const { handler, ...route } = definition;
  return definePortalRoute<P, B, R, Q>({
    ...route,
    access: 'member',
    roles: ADMIN_ONLY,
    handler: async (input) => {
      if (input.access.institution.status !== 'approved') {
        throw new AppError('institution_not_approved', 'This institution has not been approved by the appliance operator yet.');
      }
      return handler(input);
    },
  });
}
