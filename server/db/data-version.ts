import type { Sequelize } from 'sequelize';
import sqlite3 from 'sqlite3';

/**
 * SQLite's `PRAGMA data_version` on a connection of its own: it changes whenever any other
 * connection commits to the file, this process's (Sequelize's, one per transaction) and other
 * processes' (the CLI) alike. A value read after a request arrived that equals the value read
 * before a row was fetched proves the row unchanged since: how the key cache stays exact
 * (docs/decisions/authenticated-hot-path.md).
 */
class DataVersionWatch {
  private readonly connection: sqlite3.Database;
  private readonly statement: sqlite3.Statement;
  private inFlight: Promise<number> | undefined;
  private queued: Promise<number> | undefined;

  constructor(file: string) {
    this.connection = new sqlite3.Database(file, sqlite3.OPEN_READWRITE, (err) => {
      if (!err) this.connection.configure('busyTimeout', 15_000);
    });
    this.statement = this.connection.prepare('PRAGMA data_version');
  }

  /**
   * A value read after this call. Callers arriving while a read runs share the one read queued
   * behind it (it starts after all of them arrived), so a burst of requests costs two reads.
   */
  current(): Promise<number> {
    if (this.queued) return this.queued;
    if (!this.inFlight) return this.launch();
    const queued = this.inFlight
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.launch();
      });
    this.queued = queued;
    return queued;
  }

  private launch(): Promise<number> {
    const read = new Promise<number>((resolve, reject) => {
      // `all`, unlike `get`, resets the prepared statement before each run.
      this.statement.all((err: Error | null, rows: Array<{ data_version: number }>) => {
        const version = rows?.[0]?.data_version;
        if (err || version === undefined) reject(err ?? new Error('PRAGMA data_version answered no row'));
        else resolve(version);
      });
    });
    this.inFlight = read;
    const clear = () => {
      if (this.inFlight === read) this.inFlight = undefined;
    };
    read.then(clear, clear);
    return read;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.statement.finalize(() => this.connection.close(() => resolve()));
    });
  }
}

const watches = new WeakMap<Sequelize, DataVersionWatch>();

/** The database's data version as seen after this call; opens the watching connection on first use. */
export function dataVersion(sequelize: Sequelize): Promise<number> {
  let watch = watches.get(sequelize);
  if (!watch) {
    const storage = (sequelize as unknown as { options: { storage?: string } }).options.storage;
    if (!storage) return Promise.reject(new Error('dataVersion needs a file database'));
    watch = new DataVersionWatch(storage);
    watches.set(sequelize, watch);
  }
  return watch.current();
}

/** Closes the watching connection, if one was opened (before the database itself closes). */
export async function closeDataVersion(sequelize: Sequelize): Promise<void> {
  const watch = watches.get(sequelize);
  if (!watch) return;
  watches.delete(sequelize);
  await watch.close();
}
