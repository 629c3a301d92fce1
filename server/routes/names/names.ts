import { namesOf, type NamedKind } from '../../commands/names.js';
import { definePortalRoute, type AnyPortalRoute } from '../../http/route.js';
import { roleScopes, type Scope } from '../../policies/scopes.js';
import { z } from '../../validation/zod.js';

/** Ids per call: two pages of the longest list. */
export const MAX_NAMED_IDS = 400;

const READ_SCOPE: Record<NamedKind, Scope> = { student: 'students:read', faculty: 'faculty:read', group: 'groups:read' };

const namesQuery = z.strictObject({
  ids: z
    .string()
    .min(1)
    .transform((value) => value.split(',').filter(Boolean))
    .pipe(z.array(z.string().min(1).max(40)).max(MAX_NAMED_IDS))
    .optional()
    .openapi({
      description: `Comma-separated ids of students, faculty members and groups (\`stu_\`, \`fac_\`, \`grp_\`), at most ${MAX_NAMED_IDS}; none answers no names.`,
      example: 'stu_a,grp_b',
    }),
});

const namedRef = z.object({
  id: z.string(),
  kind: z.enum(['student', 'faculty', 'group']),
  name: z.string(),
  detail: z.string().nullable().openapi({ description: "A person's login e-mail; null for a group." }),
});

/**
 * Names for ids on a page of the portal (licenses' holders, submissions' students, groups), in one
 * call per page instead of one per row. Only what the caller's role may read: a role without
 * `students:read` gets no student names, and ids of other institutions are simply not found.
 */
export const nameRoutes: AnyPortalRoute[] = [
  definePortalRoute({
    method: 'get',
    path: '/institutions/{id}/names',
    operationId: 'namesOf',
    tag: 'Institution data',
    summary: 'The names of people and groups by id, for showing names instead of ids',
    access: 'member',
    roles: ['admin', 'developer'],
    params: z.strictObject({ id: z.string().min(1).max(40) }),
    query: namesQuery,
    response: z.object({ items: z.array(namedRef) }),
    handler: async ({ access, query }) => {
      const scopes = new Set(roleScopes(access.role));
      const kinds = new Set((Object.keys(READ_SCOPE) as NamedKind[]).filter((kind) => scopes.has(READ_SCOPE[kind])));
      return { items: await namesOf(access.tenant, query.ids ?? [], kinds) };
    },
  }),
];
