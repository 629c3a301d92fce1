import { namesOf, NAMED_KINDS, type NamedKind } from '../../commands/people/names.js';
import { operatorNamesOf } from '../../commands/operator/names.js';
import { defineRoute, type AnyPortalRoute } from '../../http/route.js';
import type { MembershipRole } from '../../models/membership.js';
import { roleScopes, type Scope } from '../../policies/scopes.js';
import { ADMIN } from '../developers/developers.js';
import { KEY_ROLES } from '../keys/keys.js';
import { institutionNamesQuery, institutionParams, namesResponse, operatorNamesQuery, operatorNamesResponse } from './schema.js';

/**
 * Who may see each kind's names: the scope the kind's own reads require, or, for what only the
 * portal has (keys, the team), the roles of its page. Names never reach further than the reads.
 */
const MAY_NAME: Record<NamedKind, Scope | readonly MembershipRole[]> = {
  student: 'students:read',
  faculty: 'faculty:read',
  group: 'groups:read',
  exam: 'exams:read',
  submission: 'submissions:read',
  license: 'licenses:read',
  seat: 'licenses:read',
  endpoint: 'webhooks:read',
  delivery: 'webhooks:read',
  event: 'webhooks:read',
  key: KEY_ROLES,
  account: ADMIN,
  invitation: ADMIN,
};

/** The kinds `role` may see named. */
export function nameableKinds(role: MembershipRole): Set<NamedKind> {
  const scopes = new Set<string>(roleScopes(role));
  return new Set(NAMED_KINDS.filter((kind) => (typeof MAY_NAME[kind] === 'string' ? scopes.has(MAY_NAME[kind]) : MAY_NAME[kind].includes(role))));
}

/**
 * Names for the ids on a page of the portal (holders, students, endpoints, audit targets…), in one
 * call per page instead of one per row. Only what the caller's role may read: a role without
 * `students:read` gets no student names, and ids of other institutions are simply not found.
 */
export const nameRoutes: AnyPortalRoute[] = [
  defineRoute({
    method: 'get',
    path: '/institutions/{id}/names',
    operationId: 'namesOf',
    tag: 'Institution data',
    summary: 'The names of what ids stand for (people, groups, exams, endpoints, keys…), for showing names instead of ids',
    caller: 'member',
    sandbox: true,
    roles: ['admin', 'developer'],
    params: institutionParams,
    query: institutionNamesQuery,
    response: namesResponse,
    handler: async ({ access, query }) => ({ items: await namesOf(access.tenant, query.ids ?? [], nameableKinds(access.role)) }),
  }),
  defineRoute({
    method: 'get',
    path: '/operator/names',
    operationId: 'operatorNamesOf',
    tag: 'Operator',
    summary: "The names of the appliance's institutions, accounts, invitations, coupon batches and curricula by id",
    caller: 'operator',
    query: operatorNamesQuery,
    response: operatorNamesResponse,
    handler: async ({ ctx, query }) => ({ items: await operatorNamesOf(ctx.db, query.ids ?? []) }),
  }),
];
