import type { Sequelize } from 'sequelize';

/**
 * This process's write transactions of each institution, queued in JavaScript before they take a
 * connection: they would only wait for the institution's lock there, and sixteen writers of one
 * institution would hold every connection of the pool (10) idle while reads and other
 * institutions waited for one. Other processes still wait on the lock itself.
 */
const turns = new WeakMap<Sequelize, Map<string, Promise<unknown>>>();

export function inTurn<T>(sequelize: Sequelize, institutionId: string, work: () => Promise<T>): Promise<T> {
  let queues = turns.get(sequelize);
  if (!queues) turns.set(sequelize, (queues = new Map()));
  const run = (queues.get(institutionId) ?? Promise.resolve()).then(work);
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  queues.set(institutionId, tail);
  void tail.then(() => {
    if (queues.get(institutionId) === tail) queues.delete(institutionId);
  });
  return run;
}

/** The first key of PostgreSQL advisory locks that stand for an institution's writes ('CB' and 1); the second is the hash of its id. */
export const INSTITUTION_WRITE_LOCKS = 0x43420001;
