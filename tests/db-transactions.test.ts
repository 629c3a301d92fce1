import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, type Database } from '../server/db/index.js';
import { insertInstitution } from '../server/commands/institutions.js';

describe('write transactions', () => {
  let dir: string;
  let db: Database;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'campusbridge-tx-'));
    db = await connectDatabase(path.join(dir, 'db.sqlite'));
  });
  afterAll(async () => {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs many concurrent writers one after another without stalling on the lock', async () => {
    const started = Date.now();
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        db.sequelize.transaction(async (transaction) => {
          await insertInstitution(db, { name: `School ${i}`, status: 'approved' }, transaction);
          order.push(i);
        }),
      ),
    );
    expect(order).toHaveLength(40);
    expect(await db.models.Institution.count()).toBe(40);
    // Stalled writers would each wait out the 15 s busy timeout.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('refuses at once a top-level transaction opened inside another, instead of waiting for itself', async () => {
    const outcome = await db.sequelize
      .transaction(async () => {
        await db.sequelize.transaction(async () => undefined);
      })
      .then(
        () => 'completed',
        (error: Error) => error.message,
      );
    expect(outcome).toMatch(/inside another one/);
  });

  it('lets savepoints join their parent and after-commit hooks queue new work', async () => {
    let hookWrote: Promise<unknown> | null = null;
    await db.sequelize.transaction(async (transaction) => {
      await db.sequelize.transaction({ transaction }, (savepoint) => insertInstitution(db, { name: 'Savepoint School', status: 'pending' }, savepoint));
      transaction.afterCommit(() => {
        hookWrote = db.sequelize.transaction((next) => insertInstitution(db, { name: 'After Commit School', status: 'pending' }, next));
      });
    });
    await hookWrote;
    expect(await db.models.Institution.count({ where: { name: ['Savepoint School', 'After Commit School'] } })).toBe(2);
  });
});
