import { DEFAULT_GRACE_HOURS, MAX_GRACE_HOURS, MAX_WEBHOOK_ENDPOINTS } from '../../commands/webhooks/endpoints.js';
import { isEventPattern } from '../../webhooks/patterns.js';
import { idParam, timestamp } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';

const ENDPOINT_ID = 'whe_8Tq3mLx7Kw2Pz9Rb4Nc1Vd6Y';
const SECRET_EXAMPLE = 'whsec_q0YB8HkR3nV1w2Lx5ZpT7cJm9sDf4aEu';

const url = z.string().trim().min(1).max(2048).openapi({
  description:
    'Where deliveries are POSTed. Must be `https://` (`422 https_required`) and its host must not be, or resolve to, a loopback, private, link-local or unique-local address (`422 private_host`); the host is checked again at every delivery. Hosts and networks listed in the appliance setting `outbound_private_hosts` (or `all`) may be loopback or private, over `http://` too.',
  example: 'https://lms.riverside-high.example/hooks/campusbridge',
});

const description = z.string().max(500).openapi({ example: 'Grades into the LMS gradebook' });

const events = z
  .array(z.string().max(100).refine(isEventPattern, 'Use "*", a family such as "exam.*", or an exact type such as "exam.graded".'))
  .max(100)
  .openapi({
    description:
      'Patterns of the event types to receive: `*`, a family such as `exam.*`, or an exact type such as `exam.graded`. Missing or empty: `422 events_required`; a malformed pattern: `422 validation_error` naming `events.<index>`. Repeats are dropped.',
    example: ['exam.graded', 'student.*'],
  });

const endpointStatus = z.enum(['active', 'paused', 'disabled']).openapi({
  description:
    '`active` receives deliveries; `paused` queues them and they go out on resume; `disabled` receives none (by the receiver answering 410, by 30 consecutive failures, or by the client).',
});

export const createEndpointBody = z
  .strictObject({
    url,
    description: description.default(''),
    // Optional here so a missing list answers `events_required`, as docs/api.md#error-codes names it, not `validation_error`.
    events: events.optional(),
  })
  .openapi('WebhookEndpointCreate');

export const updateEndpointBody = z
  .strictObject({
    url: url.optional().openapi({ description: 'Checked as at creation (`https_required`, `private_host`).' }),
    description: description.optional(),
    events: events.optional().openapi({ description: 'Replaces the whole list; `[]` is `422 events_required`.' }),
    status: endpointStatus.optional().openapi({
      description:
        '`paused` holds deliveries (they queue). `active` resumes a paused endpoint or re-enables a disabled one, and resets `consecutive_failures` to 0 and `disabled_reason` to null. `disabled` stops deliveries with `disabled_reason` `disabled_by_user` (an endpoint already disabled keeps its reason).',
    }),
  })
  .openapi('WebhookEndpointUpdate');

export const rotateSecretBody = z
  .strictObject({
    grace_hours: z
      .number()
      .int()
      .min(0)
      .max(MAX_GRACE_HOURS)
      .default(DEFAULT_GRACE_HOURS)
      .openapi({
        description: `Hours the replaced secret keeps signing deliveries beside the new one, 0 to ${MAX_GRACE_HOURS} (default ${DEFAULT_GRACE_HOURS}); 0 retires it at once.`,
        example: DEFAULT_GRACE_HOURS,
      }),
  })
  .openapi('WebhookSecretRotate');

export const endpointSchema = z
  .object({
    id: z.string().openapi({ example: ENDPOINT_ID }),
    url: z.string().openapi({ example: 'https://lms.riverside-high.example/hooks/campusbridge' }),
    description: z.string().openapi({ example: 'Grades into the LMS gradebook' }),
    events: z.array(z.string()).openapi({ example: ['exam.graded', 'student.*'] }),
    status: endpointStatus,
    disabled_reason: z.string().nullable().openapi({
      description:
        'Why the endpoint is disabled: `too_many_failures` (30 failed attempts in a row), `gone` (the receiver answered 410) or `disabled_by_user`; null while not disabled.',
      example: null,
    }),
    consecutive_failures: z
      .number()
      .int()
      .openapi({ description: 'Failed delivery attempts in a row; any success resets it. Test pings do not count.', example: 0 }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi('WebhookEndpoint');

const secret = z.string().openapi({
  description: 'The signing secret, `whsec_` + base64 of 24 random bytes. Shown only here: store it now.',
  example: SECRET_EXAMPLE,
});

export const createdEndpointSchema = endpointSchema.extend({ secret }).openapi('WebhookEndpointCreated');

export const rotatedEndpointSchema = endpointSchema
  .extend({
    secret: secret.openapi({ description: 'The new signing secret, current from now on. Shown only here: store it now.' }),
    previous_secret_expires_at: timestamp.openapi({
      description:
        'Until this instant deliveries carry a signature by the replaced secret too (newest first). Equal to the rotation time when `grace_hours` is 0.',
    }),
  })
  .openapi('WebhookEndpointRotated');

export const endpointList = z.object({
  items: z.array(endpointSchema).openapi({ description: `Oldest first; at most ${MAX_WEBHOOK_ENDPOINTS} per institution, so not paged.` }),
});

export const deleteEndpointResponse = z.object({
  id: z.string().openapi({ example: ENDPOINT_ID }),
  deleted: z.literal(true),
});

export const pingResult = z
  .object({
    delivered: z.boolean().openapi({ description: 'The receiver answered 2xx within the timeout (redirects are not followed).' }),
    response_status: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Null when no answer came (timeout, connection refused, refused address).', example: 202 }),
    response_time_ms: z.number().int().openapi({ example: 84 }),
    response_body: z.string().nullable().openapi({ description: 'First 2 KB of what the receiver answered.', example: 'ok' }),
  })
  .openapi('WebhookPingResult');

export const endpointParams = idParam('Webhook endpoint id.', ENDPOINT_ID);
