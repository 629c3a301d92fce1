import { setGradebookWriteback } from '../../commands/oneroster/connections.js';
import { listGradebookPosts, retryGradebookPost, type GradebookPostWithAttempts } from '../../commands/oneroster/gradebook.js';
import { notFound } from '../../errors.js';
import { defineRoute, type AnyPortalRoute } from '../../http/route.js';
import { GRADEBOOK_STEPS } from '../../models/oneroster-gradebook.js';
import { iso } from '../../presenters/common.js';
import { z } from '../../validation/zod.js';
import { connectionSchema, presentConnection } from './oneroster.js';

/**
 * Grades sent to the SIS's gradebook (docs/lms.md): the connection's opt-in, and the result posts
 * with every attempt and a Retry, as the LTI page lists the grades sent to the LMS. The admins'.
 */

const params = z.strictObject({ id: z.string().min(1).max(40) });
const postParams = z.strictObject({ id: z.string().min(1).max(40), postId: z.string().min(1).max(40) });
const ROLES = ['admin'] as const;

export const gradebookPostSchema = z.object({
  id: z.string(),
  submission_id: z.string(),
  exam_id: z.string(),
  student_id: z.string(),
  line_item_sourced_id: z.string(),
  result_sourced_id: z.string(),
  payload: z.record(z.string(), z.unknown()).openapi({ description: 'The `result` exactly as `PUT` to `/ims/oneroster/gradebook/v1p2/results/{sourcedId}`.' }),
  status: z
    .enum(['pending', 'delivering', 'succeeded', 'dead', 'superseded'])
    .openapi({ description: '`superseded`: a newer grade of the same result was queued before this one went; it is never sent.' }),
  attempt_count: z.number().int(),
  next_attempt_at: z.string().nullable(),
  last_attempt_at: z.string().nullable(),
  response_status: z.number().int().nullable(),
  error: z.string().nullable(),
  created_at: z.string(),
  attempts: z.array(
    z.object({
      at: z.string(),
      step: z.enum(GRADEBOOK_STEPS).openapi({ description: 'The request the attempt ended on: a result needs its category and line item first.' }),
      response_status: z.number().int().nullable(),
      response_body: z.string().nullable(),
      error: z.string().nullable(),
    }),
  ),
});

function presentGradebookPost({ post, attempts }: GradebookPostWithAttempts): z.input<typeof gradebookPostSchema> {
  return {
    id: post.id,
    submission_id: post.submission_id,
    exam_id: post.exam_id,
    student_id: post.student_id,
    line_item_sourced_id: post.line_item_sourced_id,
    result_sourced_id: post.result_sourced_id,
    payload: post.payload,
    status: post.status,
    attempt_count: post.attempt_count,
    next_attempt_at: iso(post.next_attempt_at),
    last_attempt_at: iso(post.last_attempt_at),
    response_status: post.response_status,
    error: post.error,
    created_at: post.created_at.toISOString(),
    attempts: attempts.map((attempt) => ({
      at: attempt.at.toISOString(),
      step: attempt.step,
      response_status: attempt.response_status,
      response_body: attempt.response_body,
      error: attempt.error,
    })),
  };
}

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
    params,
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
    params,
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
