// @tier integration
// @databases sqlite: SQLite's PRAGMA table_info cache
import path from 'node:path';
import { DataTypes, type Model, type ModelStatic } from 'sequelize';
import type sqlite3 from 'sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../server/db/sequelize.js';
import { tempDataDirs } from './helpers/appliance.js';

/**
 * Sequelize's SQLite dialect asks `PRAGMA table_info` of every table before every SELECT; our
 * connections answer it from memory until a table changes (docs/decisions/authenticated-hot-path.md).
 */
describe('schema pragmas', () => {
  const dataDir = tempDataDirs();
  let sequelize: Awaited<ReturnType<typeof openDatabase>>;
  let Thing: ModelStatic<Model>;
  const statements: string[] = [];
  const pragmas = () => statements.filter((sql) => /table_info/i.test(sql)).length;

  beforeAll(async () => {
    sequelize = await openDatabase(path.join(dataDir(), 'pragmas.sqlite'));
    await sequelize.query('CREATE TABLE things (id TEXT PRIMARY KEY, at DATETIME, tags JSON)');
    Thing = sequelize.define(
      'Thing',
      { id: { type: DataTypes.STRING, primaryKey: true }, at: DataTypes.DATE, tags: DataTypes.JSON },
      { tableName: 'things', timestamps: false },
    );
    await Thing.create({ id: 'a', at: new Date('2026-01-02T03:04:05Z'), tags: ['x'] });
    const manager = sequelize.connectionManager as unknown as { getConnection(options: object): Promise<sqlite3.Database> };
    const connection = await manager.getConnection({});
    connection.on('trace', (sql: string) => statements.push(sql));
    // Tracing starts asynchronously: wait until a marker statement shows, then count from empty.
    for (let tries = 0; !statements.some((sql) => sql.includes('trace_ready')) && tries < 100; tries++) {
      await sequelize.query("SELECT 'trace_ready'");
    }
    statements.length = 0;
  });
  afterAll(() => sequelize.close());

  /**
   * Traces arrive asynchronously, in order: once a marker statement's trace is in, every statement
   * run before it is counted.
   */
  async function allTraced(): Promise<void> {
    const marker = `SELECT 'traced_${Math.random().toString(36).slice(2)}'`;
    await sequelize.query(marker);
    for (let tries = 0; !statements.includes(marker) && tries < 200; tries++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(statements).toContain(marker);
  }
  const selects = () => statements.filter((sql) => sql.startsWith('SELECT') && !sql.includes("'trace_ready'") && !sql.includes("'traced_"));

  it('runs once per table, not once per SELECT, and values are still parsed by column type', async () => {
    for (let i = 0; i < 3; i++) {
      const [row] = await Thing.findAll();
      expect(row?.get('at')).toEqual(new Date('2026-01-02T03:04:05Z'));
      expect(row?.get('tags')).toEqual(['x']);
    }
    await allTraced();
    expect(pragmas()).toBeLessThanOrEqual(1);
    expect(selects()).toHaveLength(3);
  });

  it('asks again after a table changes', async () => {
    await Thing.findAll();
    await allTraced();
    const before = pragmas();
    await sequelize.query('ALTER TABLE things ADD COLUMN note TEXT');
    await Thing.findAll();
    await Thing.findAll();
    await allTraced();
    expect(pragmas()).toBe(before + 1);
  });

  // Sequelize's SQLite dialect captured a stack for every query and formatted it as text on every
  // answer, used only when the query failed (build/patches/sequelize+6.37.8.patch).
  it('formats no stack trace for a query that succeeds; a failing one still says where it was called from', async () => {
    const original = Error.prepareStackTrace;
    let formatted = 0;
    Error.prepareStackTrace = (error, sites) => {
      formatted += 1;
      return original ? original(error, sites) : [String(error), ...sites.map((site) => `    at ${site}`)].join('\n');
    };
    try {
      for (let i = 0; i < 5; i++) await Thing.findAll();
      await sequelize.query('SELECT 1');
    } finally {
      Error.prepareStackTrace = original;
    }
    expect(formatted).toBe(0);
    const failure = await sequelize.query('SELECT * FROM no_such_table').catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/no such table/);
    expect((failure as Error).stack).toContain('schema-pragmas.test.ts');
  });
});
