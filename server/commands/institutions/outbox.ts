import { Op, type WhereOptions } from 'sequelize';
import type { Database } from '../../db/index.js';
import type { Tenant } from '../../db/tenant.js';
import { validationError } from '../../errors.js';
import { getSmtpSettings } from '../../mail/smtp-settings.js';
import type { MailOutboxRow, MailStatus } from '../../models/mail.js';

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

/** Which mail, and the page after which `cursor`. */
export interface OutboxFilter {
  status?: MailStatus | undefined;
  cursor?: string | undefined;
  limit: number;
}

/** A page of the outbox: its rows, the cursor of the next page (null on the last), and whether a mail server is set up. */
export interface OutboxPage {
  rows: MailOutboxRow[];
  nextCursor: string | null;
  mailServer: boolean;
}

/** The institution's mail, newest first, a page after `cursor`, and whether the appliance has a mail server to send it. */
export async function listOutbox(db: Database, tenant: Tenant, filter: OutboxFilter): Promise<OutboxPage> {
  const mailServer = (await getSmtpSettings(db)) !== null;
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
  return {
    rows: items,
    nextCursor: rows.length > filter.limit && last ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null,
    mailServer,
  };
}
