// @tier integration
// @databases sqlite, postgres
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, type Database } from '../server/db/index.js';
import { insertInstitution } from '../server/commands/institutions/institutions.js';
import { dataDirDatabase, makeDataDir, removeDataDir } from './helpers/appliance.js';
import { onPostgres } from './helpers/postgres.js';

describe('write transactions', () => {
  let dir: string;
  let db: Database;
  beforeAll(async () => {
    dir = makeDataDir('campusbridge-tx-');
    db = await connectDatabase(await dataDirDatabase(dir));
  });
  afterAll(async () => {
    await db.close();
    await removeDataDir(dir);
  });

  it('runs many concurrent writers one after another without stalling on the lock', async () => {
    const started = Date.now();
    // Counted once committed: PostgreSQL runs a transaction's body again after a serialization failure.
    const committed: number[] = [];
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        db.sequelize
          .transaction((transaction) => insertInstitution(db, { name: `School ${i}`, status: 'approved' }, transaction))
          .then(() => committed.push(i)),
      ),
    );
    expect(committed).toHaveLength(40);
    expect(await db.models.Institution.count()).toBe(40);
    // Stalled writers would each wait out the 15 s busy timeout.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  // SQLite's one writer would wait for itself; PostgreSQL runs the inner transaction on a connection of its own.
  it.skipIf(onPostgres())('refuses at once a top-level transaction opened inside another, instead of waiting for itself', async () => {
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

  // Each database knows its own open transaction (one store for the process, keyed by database): a second
  // database's transaction inside the first's is no nesting, and the first still refuses its own inside both.
  it.skipIf(onPostgres())('tells the transactions of two databases apart', async () => {
    const otherDir = makeDataDir('campusbridge-tx-other-');
    const other = await connectDatabase(await dataDirDatabase(otherDir));
    try {
      const outcome = await db.sequelize.transaction(async (outer) => {
        await insertInstitution(db, { name: 'Outer School', status: 'approved' }, outer);
        return other.sequelize.transaction(async (inner) => {
          await insertInstitution(other, { name: 'Inner School', status: 'approved' }, inner);
          return db.sequelize
            .transaction(async () => undefined)
            .then(
              () => 'completed',
              (error: Error) => error.message,
            );
        });
      });
      expect(outcome).toMatch(/inside another one/);
      expect(await other.models.Institution.count({ where: { name: 'Inner School' } })).toBe(1);
      expect(await db.models.Institution.count({ where: { name: 'Outer School' } })).toBe(1);
    } finally {
      await other.close();
      await removeDataDir(otherDir);
    }
  });

  // A stall seen with many writers at once: a write with no transaction ran on the connection the reads share and
  // waited there for the lock, holding that connection; reads piled up behind it filled the thread
  // pool, and the transaction holding the lock could not run its next statement for 15 s.
  it.skipIf(onPostgres())('queues a write made outside any transaction, so neither the reads nor the lock holder wait on it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const holder = db.sequelize.transaction(async (transaction) => {
      await insertInstitution(db, { name: 'Lock Holder', status: 'approved' }, transaction);
      holding();
      await gate;
      const started = Date.now();
      await db.models.Institution.count({ transaction });
      return Date.now() - started;
    });
    await held;
    const outside = db.models.Institution.update({ name: 'Renamed Outside' }, { where: { name: 'Lock Holder' } });
    const reads = Array.from({ length: 6 }, () => db.models.Institution.count());
    // Let the write and the reads reach the driver before the holder takes its next step.
    await new Promise((resolve) => setTimeout(resolve, 300));
    release();
    const holderStepMs = await holder;
    const [renamed] = await outside;
    await Promise.all(reads);
    // Only a stall reaches this bound: the busy timeout is 15 s, a quiet step takes a millisecond.
    expect(holderStepMs).toBeLessThan(10_000);
    // Queued behind the holder, the write saw its committed row.
    expect(renamed).toBe(1);
  });

  it.skipIf(onPostgres())('refuses at once a write inside an open transaction that forgot to pass it', async () => {
    const outcome = await db.sequelize
      .transaction(async () => {
        await db.models.Institution.update({ name: 'Nowhere' }, { where: { name: 'Nobody' } });
      })
      .then(
        () => 'completed',
        (error: Error) => error.message,
      );
    expect(outcome).toMatch(/pass the transaction/);
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
