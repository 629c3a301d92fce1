import { Op } from 'sequelize';
import { hashToken } from '../crypto/tokens.js';
import type { Database } from '../db/index.js';
import { Tenant } from '../db/tenant.js';
import type { MailAboutKind, MailDropReason, MailOutboxRow } from '../models/mail.js';

// Mail that waited (for a mail server, or behind a failing one) may no longer be true when it is
// finally picked up: the invitation was accepted or replaced, the exam closed. What "stale" means
// for each kind of subject is written down in docs/decisions/guardians-and-mail.md.

/** What a queued message is about: `queueMail`'s optional `about`. */
export interface MailAbout {
  kind: MailAboutKind;
  id: string;
}

/** Decides, for one message about an already-read subject, why it must not be sent (null: send it). */
type Judge = (mailVersion: string | null, now: Date) => MailDropReason | null;

interface SubjectKind {
  /** The subject's current version, recorded on the message when it is queued; null if it has none. */
  version(tenant: Tenant, id: string): Promise<string | null>;
  /** Reads the subject once; the judge it returns answers for every message about it. */
  load(tenant: Tenant, id: string): Promise<Judge>;
}

/**
 * A link's token hash identifies the link without revealing it; the outbox keeps only a short
 * hash of that hash, enough to see that the link was replaced and useless for anything else.
 */
const linkFingerprint = (tokenHash: string | null) => (tokenHash ? hashToken(`mail-about:${tokenHash}`).slice(0, 16) : null);

const past = (at: Date | null, now: Date) => at !== null && at.getTime() <= now.getTime();

/** A message written for an older link (a resend replaced it) has a dead link. */
const replaced = (mailVersion: string | null, current: string | null) => mailVersion !== null && mailVersion !== current;

const SUBJECTS: Record<MailAboutKind, SubjectKind> = {
  /** A portal invitation (admin or developer): gone is withdrawn; only a pending, current, unexpired link is worth sending. */
  invitation: {
    version: async (tenant, id) => linkFingerprint((await tenant.invitations.findById(id, { attributes: ['token_hash'] }))?.token_hash ?? null),
    load: async (tenant, id) => {
      const row = await tenant.invitations.findById(id, { attributes: ['status', 'token_hash', 'expires_at'] });
      return (mailVersion, now) => {
        if (!row) return 'invitation_revoked';
        if (row.status === 'accepted') return 'invitation_accepted';
        if (row.status !== 'pending') return 'invitation_revoked';
        if (replaced(mailVersion, linkFingerprint(row.token_hash))) return 'link_replaced';
        return past(row.expires_at, now) ? 'link_expired' : null;
      };
    },
  },
  /** A guardian's invitation: the link removed, already confirmed, resent or expired. */
  guardian_invitation: {
    version: async (tenant, id) => linkFingerprint((await tenant.guardianLinks.findById(id, { attributes: ['invite_token_hash'] }))?.invite_token_hash ?? null),
    load: async (tenant, id) => {
      const row = await tenant.guardianLinks.findById(id, { attributes: ['verified', 'invite_token_hash', 'invite_expires_at'] });
      return (mailVersion, now) => {
        if (!row) return 'invitation_revoked';
        if (row.verified) return 'invitation_accepted';
        if (replaced(mailVersion, linkFingerprint(row.invite_token_hash))) return 'link_replaced';
        return past(row.invite_expires_at, now) ? 'link_expired' : null;
      };
    },
  },
  /** Mail for a verified guardian (weekly reports): not once the guardian is no longer linked to the student. */
  guardian_link: {
    version: async () => null,
    load: async (tenant, id) => {
      const row = await tenant.guardianLinks.findById(id, { attributes: ['verified'] });
      return () => (row?.verified ? null : 'guardian_removed');
    },
  },
  /**
   * An exam notice: only while the exam exists and is not closed. A due date that has passed does
   * not make it stale: due dates are not enforced, only closing stops work (docs/decisions/sso-and-the-learner-side.md).
   */
  exam: {
    version: async () => null,
    load: async (tenant, id) => {
      const row = await tenant.exams.findById(id, { attributes: ['status'] });
      return () => (!row ? 'exam_deleted' : row.status === 'closed' ? 'exam_closed' : null);
    },
  },
};

const isKnownKind = (kind: string): kind is MailAboutKind => Object.hasOwn(SUBJECTS, kind);

/** The version of `about` to record on a message queued in `tenant`'s transaction (after the change that made its link). */
export function aboutVersion(tenant: Tenant, about: MailAbout): Promise<string | null> {
  return SUBJECTS[about.kind].version(tenant, about.id);
}

/**
 * Subjects already read, so a backlog of notices about one exam reads the exam once. Only valid
 * for messages read before the subjects were: a cache lives for one batch of rows.
 */
export type StalenessCache = Map<string, Promise<Judge>>;

type Checked = Pick<MailOutboxRow, 'institution_id' | 'expires_at' | 'about_kind' | 'about_id' | 'about_version'>;

/**
 * Why this waiting message must not be sent any more, or null to send it. A message past its own
 * `expires_at` is stale whatever it is about; one about nothing (or about what this version does
 * not know) is never stale otherwise.
 */
export async function staleReason(db: Database, row: Checked, now: Date, cache: StalenessCache = new Map()): Promise<MailDropReason | null> {
  if (past(row.expires_at, now)) return 'link_expired';
  const kind: string | null = row.about_kind;
  const id: string | null = row.about_id;
  const institutionId = row.institution_id;
  if (!kind || !id || !institutionId || !isKnownKind(kind)) return null;
  const key = `${institutionId}/${kind}/${id}`;
  let judge = cache.get(key);
  if (!judge) {
    judge = SUBJECTS[kind].load(new Tenant(db, institutionId), id);
    cache.set(key, judge);
  }
  return (await judge)(row.about_version, now);
}

/** Marks a waiting message dropped, body erased; false if it was no longer waiting (sent or dropped meanwhile). */
export async function dropMail(db: Database, id: string, reason: MailDropReason): Promise<boolean> {
  const [changed] = await db.sequelize.transaction((transaction) =>
    db.models.MailOutbox.update(
      { status: 'dropped', dropped_reason: reason, body_sealed: null, html_sealed: null },
      { where: { id, status: 'queued' }, transaction },
    ),
  );
  return changed === 1;
}

const SWEEP_BATCH = 200;

/**
 * Drops every waiting message that has gone stale, oldest first, at most `limit` of them read per
 * call (the next call takes the rest). Used while no mail server is set, so the outbox says what
 * will never be sent instead of listing it as waiting, and by the hourly prune.
 */
export async function dropStaleMail(db: Database, now = new Date(), limit = 2000): Promise<number> {
  let dropped = 0;
  let after: Pick<MailOutboxRow, 'created_at' | 'id'> | null = null;
  for (let read = 0; read < limit; read += SWEEP_BATCH) {
    const rows: MailOutboxRow[] = await db.models.MailOutbox.findAll({
      attributes: ['id', 'institution_id', 'expires_at', 'about_kind', 'about_id', 'about_version', 'created_at'],
      where: {
        [Op.and]: [
          { status: 'queued' },
          { [Op.or]: [{ about_kind: { [Op.ne]: null } }, { expires_at: { [Op.lte]: now } }] },
          ...(after ? [{ [Op.or]: [{ created_at: { [Op.gt]: after.created_at } }, { created_at: after.created_at, id: { [Op.gt]: after.id } }] }] : []),
        ],
      },
      order: [
        ['created_at', 'ASC'],
        ['id', 'ASC'],
      ],
      limit: SWEEP_BATCH,
    });
    // Read after the batch's rows, so no subject predates a message it judges (see sendBatches).
    const cache: StalenessCache = new Map();
    for (const row of rows) {
      const reason = await staleReason(db, row, now, cache);
      if (reason && (await dropMail(db, row.id, reason))) dropped += 1;
    }
    const last = rows.at(-1);
    if (!last || rows.length < SWEEP_BATCH) break;
    after = last;
  }
  return dropped;
}
