import { setGradebookWriteback } from '../../commands/oneroster/connections.js';
import { listGradebookPosts, retryGradebookPost } from '../../commands/oneroster/gradebook.js';
import { notFound } from '../../errors.js';
import { defineRoute, type AnyPortalRoute } from '../../http/route.js';
import { presentConnection, presentGradebookPost } from '../../presenters/oneroster.js';
import { z } from '../../validation/zod.js';
import { connectionSchema, gradebookPostSchema, institutionParams, postParams } from './schema.js';

/**
 * Grades sent to the SIS's gradebook (docs/lms.md): the connection's opt-in, and the result posts
 * with every attempt and a Retry, as the LTI page lists the grades sent to the LMS. The admins'.
 */

const ROLES = ['admin'] as const;

export const gradebookRoutes: AnyPortalRoute[] = [
  defineRoute({
    method: 'put',
    path: '/institutions/{id}/oneroster/gradebook',
    operationId: 'setOneRosterGradebookWriteback',
    tag: 'OneRoster',
    summary: "Turn gradebook write-back (grades to the SIS's OneRoster 1.2 gradebook) on or off, leaving the rest of the connection as it is",
    description: 'A CSV connection (nowhere to send grades) or a OneRoster 1.1 connection is refused with `422 validation_error` on `gradebook_writeback`.',
    caller: 'member',
    roles: ROLES,
    params: institutionParams,
    body: z.strictObject({ gradebook_writeback: z.boolean() }),
    response: connectionSchema,
    errors: ['not_found'],
    handler: async ({ access, body }) => presentConnection(await setGradebookWriteback(access.tenant, body.gradebook_writeback)),
  }),
  defineRoute({
    method: 'get',
    path: '/institutions/{id}/oneroster/gradebook/posts',
    operationId: 'listOneRosterGradebookPosts',
    tag: 'OneRoster',
    summary: "The newest 100 results sent (or to send) to the SIS's gradebook, with every attempt, like the LMS's score posts",
    caller: 'member',
    roles: ROLES,
    params: institutionParams,
    response: z.object({ items: z.array(gradebookPostSchema) }),
    handler: async ({ access }) => ({ items: (await listGradebookPosts(access.tenant)).map(presentGradebookPost) }),
  }),
  defineRoute({
    method: 'post',
    path: '/institutions/{id}/oneroster/gradebook/posts/{postId}/retry',
    operationId: 'retryOneRosterGradebookPost',
    tag: 'OneRoster',
    summary: 'Send a dead (or waiting) gradebook result again now',
    caller: 'member',
    roles: ROLES,
    params: postParams,
    response: z.object({ queued: z.literal(true) }),
    errors: ['not_found'],
    handler: async ({ access, params: { postId } }) => {
      if (!(await retryGradebookPost(access.tenant, postId))) throw notFound('gradebook post');
      return { queued: true as const };
    },
  }),
];
