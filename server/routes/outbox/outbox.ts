import { Op, type WhereOptions } from 'sequelize';
import type { Tenant } from '../../db/tenant.js';
import { validationError } from '../../errors.js';
import { queryInt } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';
import { MAIL_DROP_REASONS, MAIL_STATUSES, type MailOutboxRow, type MailStatus } from '../../models/mail.js';
import { nextRetryAt } from '../../mail/mailer.js';
import { getSmtpSettings } from '../../mail/smtp-settings.js';
import { iso } from '../../presenters/common.js';
import { defineRoute, type AnyPortalRoute } from '../../http/route.js';

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

const institutionParams = z.strictObject({ id: z.string().min(1).max(40) });

const mailStatus = z.enum(MAIL_STATUSES);

const outboxQuery = z.strictObject({
  status: mailStatus.optional(),
  /** `next_cursor` of the previous page; absent for the newest mail. */
  cursor: z.string().min(1).max(200).optional(),
  limit: queryInt({ min: 1, max: 200, default: 50 }),
});

export const outboxItemSchema = z.object({
  id: z.string(),
  /** Masked (`a•••@example.org`): the outbox never shows whole addresses, which may be personal ones. */
  to: z.string(),
  subject: z.string(),
  kind: z.string(),
  /** `queued`: waiting (for a mail server, or for the next try); `failed`: given up after the attempt limit; `dropped`: never sent, see `dropped_reason`. */
  status: mailStatus,
  /** Why a `dropped` message was not sent: its link expired or was replaced, its invitation was withdrawn or accepted, its guardian unlinked, its exam closed or deleted. */
  dropped_reason: z.enum(MAIL_DROP_REASONS).nullable(),
  attempts: z.number().int(),
  last_error: z.string().nullable(),
  /** When the sender next picks up a `queued` message; null when no mail server is set (it waits for one) or the message is settled. */
  next_attempt_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  sent_at: z.string().nullable(),
});

export const outboxPageSchema = z.object({
  /** False: no mail server is set up on this appliance, so queued mail waits until the operator sets one. */
  mail_server_configured: z.boolean(),
  items: z.array(outboxItemSchema),
  /** Null on the last page. */
  next_cursor: z.string().nullable(),
});

// ---------------------------------------------------------------------------------------------
// The outbox
// ---------------------------------------------------------------------------------------------

/**
 * Only what a person needs to see that mail went out: never the sealed recipient, never the body
 * (guardian and developer invitations carry sign-in tokens).
 */
function presentOutboxMail(row: MailOutboxRow, nextAttemptAt: Date | null): z.input<typeof outboxItemSchema> {
  return {
    id: row.id,
    to: row.to_masked,
    subject: row.subject,
    kind: row.kind,
    status: row.status,
    dropped_reason: row.status === 'dropped' ? row.dropped_reason : null,
    attempts: row.attempts,
    last_error: row.last_error,
    next_attempt_at: row.status === 'queued' ? iso(nextAttemptAt) : null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    sent_at: iso(row.sent_at),
  };
}

interface OutboxPosition {
  createdAt: Date;
  id: string;
}

// A cursor is the last row's position (newest first), so paging stays exact while new mail arrives.
const encodeCursor = (row: OutboxPosition) => Buffer.from(`${row.createdAt.getTime()}.${row.id}`, 'utf8').toString('base64url');

function decodeCursor(cursor: string): OutboxPosition {
  const match = /^(\d{1,15})\.([A-Za-z0-9_]{1,40})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw validationError([{ path: 'cursor', message: 'Not a cursor this list gave out.' }]);
  return { createdAt: new Date(Number(match[1])), id: match[2]! };
}

interface OutboxFilter {
  status?: MailStatus | undefined;
  cursor?: string | undefined;
  limit: number;
}

/** The institution's mail, newest first, a page after `cursor`; `mailServer`: whether one is set up. */
async function listOutbox(tenant: Tenant, filter: OutboxFilter, mailServer: boolean) {
  const where: WhereOptions<MailOutboxRow>[] = [];
  if (filter.status) where.push({ status: filter.status });
  if (filter.cursor) {
    const after = decodeCursor(filter.cursor);
    where.push({
      [Op.or]: [{ created_at: { [Op.lt]: after.createdAt } }, { created_at: after.createdAt, id: { [Op.lt]: after.id } }],
    });
  }
  // One row more than asked tells whether another page follows.
  const rows = await tenant.mailOutbox.findAll({
    where: where.length > 0 ? { [Op.and]: where } : undefined,
    order: [
      ['created_at', 'DESC'],
      ['id', 'DESC'],
    ],
    limit: filter.limit + 1,
  });
  const items = rows.slice(0, filter.limit);
  const last = items.at(-1);
  const nextAttemptAt = mailServer ? nextRetryAt() : null;
  return {
    mail_server_configured: mailServer,
    items: items.map((row) => presentOutboxMail(row, nextAttemptAt)),
    next_cursor: rows.length > filter.limit && last ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null,
  };
}

// ---------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------

/** The mail outbox is the admins': developers get 403. */
const SETTINGS_ROLES = ['admin'] as const;

/**
 * The institution's mail outbox. The profile and integration config are the /v1 operations
 * themselves (`GET /institution`, `GET|PUT /institution/config`), mounted for portal sessions.
 */
export const outboxRoutes: AnyPortalRoute[] = [
  defineRoute({
    method: 'get',
    path: '/institutions/{id}/outbox',
    operationId: 'listOutbox',
    tag: 'Outbox',
    summary: "The institution's mail, newest first: masked recipient, subject, kind, status (with why mail was dropped), attempts and the next try",
    caller: 'member',
    sandbox: true,
    roles: SETTINGS_ROLES,
    params: institutionParams,
    query: outboxQuery,
    response: outboxPageSchema,
    handler: async ({ ctx, access, query }) => listOutbox(access.tenant, query, (await getSmtpSettings(ctx.db)) !== null),
  }),
];
