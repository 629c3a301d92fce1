import { isIP } from 'node:net';
import type { Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { Op, literal, type WhereOptions } from 'sequelize';
import type { Database } from '../db/index.js';
import type { Logger } from '../logger.js';
import type { MailOutboxRow } from '../models/mail.js';
import { openBody, openHtml, openRecipient, rebaseLinks } from './outbox.js';
import { loadSmtpConnection, type SmtpConnectionSettings } from './smtp-settings.js';
import { dropMail, staleReason, type StalenessCache } from './staleness.js';

/** Attempts before a message is given up as `failed`. */
export const MAX_MAIL_ATTEMPTS = 5;
/**
 * When waiting mail is next picked up: the send-mail job runs at the start of every minute (UTC),
 * and retries what failed on each run.
 */
export function nextRetryAt(now = new Date()): Date {
  return new Date(Math.floor(now.getTime() / 60_000) * 60_000 + 60_000);
}

/** Rows read per query; a run reads at most MAX_BATCHES of them, the next run takes the rest. */
const BATCH_SIZE = 50;
const MAX_BATCHES = 4;

export interface MailRunResult {
  /** false: no SMTP server configured, nothing was tried (mail waits as `queued`). */
  configured: boolean;
  sent: number;
  /** Attempts that failed and will be retried. */
  retrying: number;
  /** Messages given up on this run after MAX_MAIL_ATTEMPTS. */
  failed: number;
  /** Messages dropped unsent because they had gone stale (server/mail/staleness.ts). */
  dropped: number;
}

export interface SendOptions {
  /**
   * false: only mail never tried yet (what a commit just queued). The every-minute job passes
   * true (the default) and so is the only one that retries, which spaces attempts a minute apart
   * instead of retrying everything on every commit.
   */
  retries?: boolean;
  /** Stops between messages (appliance shutdown). */
  signal?: AbortSignal;
  /** The address links start with now, when one is set (the `public_url` setting or PUBLIC_URL); null keeps each mail's own. */
  linkBase?: () => Promise<string | null>;
}

const isLoopback = (host: string) => {
  const bare = host.replace(/^\[|\]$/g, '');
  return bare === 'localhost' || bare === '::1' || (isIP(bare) === 4 && bare.startsWith('127.'));
};

function transportOptions(smtp: SmtpConnectionSettings): SMTPTransport.Options {
  return {
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    // A relay on this very computer gains nothing from STARTTLS and often offers a self-signed
    // certificate; anywhere else STARTTLS is used whenever the server offers it.
    ignoreTLS: !smtp.secure && isLoopback(smtp.host),
    auth: smtp.user ? { user: smtp.user, pass: smtp.password ?? '' } : undefined,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
    // Addresses must not reach the log through nodemailer's own logger either.
    logger: false,
    debug: false,
  };
}

/** An error as it may be stored and logged: no addresses (servers quote recipients in replies). */
export function describeMailError(error: unknown): string {
  const err = error as { code?: unknown; responseCode?: unknown; message?: unknown };
  const parts = [
    typeof err?.code === 'string' ? err.code : null,
    typeof err?.responseCode === 'number' ? String(err.responseCode) : null,
    typeof err?.message === 'string' ? err.message : String(error),
  ].filter(Boolean);
  return parts
    .join(' ')
    .replace(/<?[^\s<>@]+@[^\s<>@]+>?/g, '[address]')
    .replace(/\s+/g, ' ')
    .slice(0, 500);
}

/**
 * A sandbox's mail (guardian reports, invitations of its test people) stays queued in its outbox
 * and is never sent: its addresses may be real people's (docs/decisions/sandbox.md).
 */
const NOT_SANDBOX_MAIL: WhereOptions = {
  [Op.or]: [{ institution_id: null }, { institution_id: { [Op.notIn]: literal('(SELECT id FROM institutions WHERE sandbox_of IS NOT NULL)') } }],
};

async function sendBatches(db: Database, logger: Logger, options: SendOptions): Promise<MailRunResult> {
  const result: MailRunResult = { configured: false, sent: 0, retrying: 0, failed: 0, dropped: 0 };
  const smtp = await loadSmtpConnection(db);
  if (!smtp) return result;
  // Read once per run, when a mail with links asks for it.
  let base: Promise<string | null> | null = null;
  const currentBase = () => (base ??= options.linkBase ? options.linkBase().catch(() => null) : Promise.resolve(null));
  result.configured = true;

  // Loaded when there is mail to send, not at start: an appliance without SMTP never needs it.
  const { default: nodemailer } = await import('nodemailer');
  const transport = nodemailer.createTransport(transportOptions(smtp));
  try {
    let after: Pick<MailOutboxRow, 'created_at' | 'id'> | null = null;
    for (let batch = 0; batch < MAX_BATCHES; batch += 1) {
      const where: WhereOptions[] = [{ status: 'queued' }, NOT_SANDBOX_MAIL];
      if (options.retries === false) where.push({ attempts: 0 });
      // Keyset paging: a row that failed on this run stays queued but is not read again until the next run.
      if (after) {
        where.push({ [Op.or]: [{ created_at: { [Op.gt]: after.created_at } }, { created_at: after.created_at, id: { [Op.gt]: after.id } }] });
      }
      const rows = await db.models.MailOutbox.findAll({
        where: { [Op.and]: where },
        order: [
          ['created_at', 'ASC'],
          ['id', 'ASC'],
        ],
        limit: BATCH_SIZE,
      });
      // Subjects are read once per batch, after its rows: a subject read earlier could predate a
      // message queued since (a resend), and would wrongly call its new link replaced.
      const stale: StalenessCache = new Map();
      for (const row of rows) {
        if (options.signal?.aborted) return result;
        await sendOne(db, logger, { transport, smtp, stale, linkBase: currentBase }, row, result);
      }
      const last = rows.at(-1);
      if (!last || rows.length < BATCH_SIZE) break;
      after = last;
    }
    return result;
  } finally {
    transport.close();
  }
}

interface Sender {
  transport: Transporter<SMTPTransport.SentMessageInfo>;
  smtp: SmtpConnectionSettings;
  /** Subjects already read on this run. */
  stale: StalenessCache;
  linkBase: () => Promise<string | null>;
}

async function sendOne(db: Database, logger: Logger, { transport, smtp, stale, linkBase }: Sender, row: MailOutboxRow, result: MailRunResult): Promise<void> {
  // Mail that waited may no longer be true (a link expired or replaced, an exam closed): drop it.
  const text = openBody(db, row);
  const reason = text === null ? 'link_expired' : await staleReason(db, row, new Date(), stale);
  if (reason !== null || text === null) {
    if (await dropMail(db, row.id, reason ?? 'link_expired')) result.dropped += 1;
    logger.info({ mail_id: row.id, kind: row.kind, reason }, 'mail dropped unsent');
    return;
  }
  // Links made before the address was set (or changed) go out with the address in use now.
  const base = row.link_base ? await linkBase() : null;
  const rebase = (value: string) => (row.link_base && base ? rebaseLinks(value, row.link_base, base) : value);
  try {
    await transport.sendMail({
      from: smtp.from,
      to: openRecipient(db, row),
      subject: row.subject,
      text: rebase(text),
      // nodemailer makes multipart/alternative of the two: text first, HTML preferred by readers that show it.
      ...(row.html_sealed ? { html: rebase(openHtml(db, row) ?? '') || undefined } : {}),
      headers: { 'Auto-Submitted': 'auto-generated' },
    });
    // Writes go through a transaction: this process's writers queue there (server/db/sequelize.ts).
    // The body is erased once sent: a delivered invitation link is not kept to be read again.
    await db.sequelize.transaction((transaction) =>
      row.update({ status: 'sent', sent_at: new Date(), last_error: null, body_sealed: null, html_sealed: null }, { transaction }),
    );
    result.sent += 1;
    logger.info({ mail_id: row.id, kind: row.kind }, 'mail sent');
  } catch (error) {
    const attempts = row.attempts + 1;
    const lastError = describeMailError(error);
    const status = attempts >= MAX_MAIL_ATTEMPTS ? 'failed' : 'queued';
    // A message given up on is never retried: its body goes with it.
    const erase = status === 'failed' ? { body_sealed: null, html_sealed: null } : {};
    await db.sequelize.transaction((transaction) => row.update({ attempts, last_error: lastError, status, ...erase }, { transaction }));
    if (status === 'failed') result.failed += 1;
    else result.retrying += 1;
    logger.warn({ mail_id: row.id, kind: row.kind, attempts, status, error: lastError }, 'mail not sent');
  }
}

interface Lane {
  /** Settles when the last run handed out has finished. */
  tail: Promise<void>;
  /** The run waiting behind the current one, which later callers can share. */
  waiting: { retries: boolean; result: Promise<MailRunResult> } | null;
}

const lanes = new WeakMap<Database, Lane>();

/**
 * Sends queued mail, oldest first, in a bounded batch, when an SMTP server is configured;
 * without one, mail simply waits as `queued`. A message that fails counts an attempt and keeps
 * `last_error` (no addresses); after MAX_MAIL_ATTEMPTS it is `failed`.
 *
 * Runs for one database never overlap (two runs would send the same row twice), and calls made
 * while one runs share the single run queued behind it, so a burst of commits costs one pass.
 */
export function sendQueuedMail(db: Database, logger: Logger, options: SendOptions = {}): Promise<MailRunResult> {
  const retries = options.retries ?? true;
  let lane = lanes.get(db);
  if (!lane) {
    lane = { tail: Promise.resolve(), waiting: null };
    lanes.set(db, lane);
  }
  const current = lane;
  if (current.waiting && (current.waiting.retries || !retries)) return current.waiting.result;

  const entry: { retries: boolean; result: Promise<MailRunResult> } = { retries, result: Promise.resolve(null as never) };
  entry.result = current.tail.then(() => {
    if (current.waiting === entry) current.waiting = null;
    return sendBatches(db, logger, { ...options, retries });
  });
  current.waiting = entry;
  current.tail = entry.result.then(
    () => undefined,
    () => undefined,
  );
  return entry.result;
}

/**
 * Sends mail right after the transaction that queued it commits (the send-mail job retries what
 * failed). Returns the hook to call on shutdown: stops listening and waits for sends in progress.
 */
export function sendMailAfterCommit(db: Database, logger: Logger, linkBase?: () => Promise<string | null>): { stop: () => Promise<void> } {
  const inFlight = new Set<Promise<unknown>>();
  const abort = new AbortController();
  const listener = () => {
    const run: Promise<unknown> = sendQueuedMail(db, logger, { retries: false, signal: abort.signal, linkBase })
      .catch((err: unknown) => logger.error({ error: describeMailError(err) }, 'sending mail failed'))
      .finally(() => inFlight.delete(run));
    inFlight.add(run);
  };
  db.mailQueuedListeners.add(listener);
  return {
    stop: async () => {
      db.mailQueuedListeners.delete(listener);
      abort.abort();
      await Promise.allSettled([...inFlight]);
    },
  };
}
