import { MAIL_DROP_REASONS, MAIL_STATUSES } from '../../models/mail.js';
import { queryInt } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';

/** The institution whose outbox is read. */
export const institutionParams = z.strictObject({ id: z.string().min(1).max(40) });

/** Where a message stands in the outbox. */
export const mailStatus = z.enum(MAIL_STATUSES);

/** A page of the outbox: optionally one status, after a cursor. */
export const outboxQuery = z.strictObject({
  status: mailStatus.optional(),
  /** `next_cursor` of the previous page; absent for the newest mail. */
  cursor: z.string().min(1).max(200).optional(),
  limit: queryInt({ min: 1, max: 200, default: 50 }),
});

/** One message as the outbox shows it: never the whole recipient, never the body. */
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

/** A page of the outbox, newest first, and whether mail can go out at all. */
export const outboxPageSchema = z.object({
  /** False: no mail server is set up on this appliance, so queued mail waits until the operator sets one. */
  mail_server_configured: z.boolean(),
  items: z.array(outboxItemSchema),
  /** Null on the last page. */
  next_cursor: z.string().nullable(),
});
