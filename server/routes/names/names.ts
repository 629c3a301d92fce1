import { namesOf, NAMED_KINDS, type NamedKind } from '../../commands/people/names.js';
import { OPERATOR_NAMED_KINDS, operatorNamesOf, type OperatorNamedKind } from '../../commands/operator/names.js';
import { defineRoute, type AnyPortalRoute } from '../../http/route.js';
import type { MembershipRole } from '../../models/membership.js';
import { roleScopes, type Scope } from '../../policies/scopes.js';
import { z } from '../../validation/zod.js';
import { ADMIN } from '../developers/developers.js';
import { KEY_ROLES } from '../keys/keys.js';

/** Ids per call: two pages of the longest list. */
export const MAX_NAMED_IDS = 400;

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

/** `?ids=a,b,c`: at most MAX_NAMED_IDS ids of the kinds `what` lists. */
const idsQuery = (what: string, example: string) =>
  z.strictObject({
    ids: z
      .string()
      .min(1)
      .transform((value) => value.split(',').filter(Boolean))
      .pipe(z.array(z.string().min(1).max(40)).max(MAX_NAMED_IDS))
      .optional()
      .openapi({ description: `Comma-separated ids, at most ${MAX_NAMED_IDS}, of any of: ${what}; none answers no names.`, example }),
  });

const namedRef = z.object({
  id: z.string(),
  kind: z.enum(NAMED_KINDS as [NamedKind, ...NamedKind[]]),
  name: z.string().openapi({
    description: "A person's or group's name, an exam's title, an endpoint's URL, an event's type, a key's name, an account's e-mail…",
  }),
  detail: z.string().nullable().openapi({
    description: "A second line where one helps: a person's login e-mail, a submission's exam, an endpoint's description, a key's prefix; else null.",
  }),
});

export const namesResponse = z.object({ items: z.array(namedRef) });

export const operatorNamesResponse = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      kind: z.enum(OPERATOR_NAMED_KINDS as [OperatorNamedKind, ...OperatorNamedKind[]]),
      name: z.string().openapi({ description: "An institution's, coupon batch's or curriculum's name; an account's or invitation's e-mail." }),
      detail: z.string().nullable().openapi({ description: 'The institution of a coupon batch or an invitation; else null.' }),
    }),
  ),
});

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
    params: z.strictObject({ id: z.string().min(1).max(40) }),
    query: idsQuery(
      'students, faculty, groups, exams, submissions, licenses, device seats, webhook endpoints, deliveries, events, API keys, team accounts and invitations',
      'stu_a,grp_b,whe_c',
    ),
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
    query: idsQuery('institutions, portal accounts, admin invitations, coupon batches and curricula', 'inst_a,acc_b'),
    response: operatorNamesResponse,
    handler: async ({ ctx, query }) => ({ items: await operatorNamesOf(ctx.db, query.ids ?? []) }),
  }),
];
