// @tier integration
// @databases sqlite: a SQLite file migrated part way (migrateTo); the same migrations run on PostgreSQL at every start of the postgres project
// The mail-subjects migration (20261126030000-mail-subjects) on a data folder an older CampusBridge left: waiting mail
// keeps waiting, about nothing; mail dropped for an expired link under the old status `expired`
// becomes `dropped` with its reason, so the outbox can say why.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectDatabase } from '../server/db/index.js';
import { migrations } from '../server/db/migrations/index.js';
import { tempDataDirs } from './helpers/appliance.js';

const NAME = '20261126030000-mail-subjects';
/** The migration just before this one: the data folder an older version left. */
const BEFORE = migrations[migrations.findIndex((migration) => migration.name === NAME) - 1]!.name;
const makeDataDir = tempDataDirs('campusbridge-mail-migration-');

describe(`migration ${NAME}`, () => {
  it('adds what a message is about (null for existing rows) and turns `expired` into `dropped` with `link_expired`', async () => {
    const file = path.join(makeDataDir(), 'campusbridge.sqlite');
    const older = await connectDatabase(file, undefined, { migrateTo: BEFORE });
    const now = new Date().toISOString();
    for (const [id, status] of [
      ['mail_waiting', 'queued'],
      ['mail_expired', 'expired'],
      ['mail_sent', 'sent'],
    ]) {
      await older.sequelize.query(
        `INSERT INTO mail_outbox (id, institution_id, to_sealed, to_masked, subject, body_sealed, expires_at, kind, status, attempts, last_error, sent_at, created_at, updated_at)
         VALUES (?, NULL, 'sealed', 'a•••@example.org', 'Hello', NULL, NULL, 'guardian_invite', ?, 0, NULL, NULL, ?, ?)`,
        { replacements: [id, status, now, now] },
      );
    }
    await older.close();

    const db = await connectDatabase(file);
    try {
      expect(db.migrationsApplied).toContain(NAME);
      const rows = await db.models.MailOutbox.findAll({ order: [['id', 'ASC']] });
      expect(rows.map((row) => [row.id, row.status, row.dropped_reason, row.about_kind, row.about_id, row.about_version])).toEqual([
        ['mail_expired', 'dropped', 'link_expired', null, null, null],
        ['mail_sent', 'sent', null, null, null, null],
        ['mail_waiting', 'queued', null, null, null, null],
      ]);
    } finally {
      await db.close();
    }
  });
});
