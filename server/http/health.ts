import fs from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../context.js';
import { appRoot } from '../paths.js';

/** How long the database may take to answer before the appliance counts as unavailable. */
const DATABASE_CHECK_MS = 2_000;

function readVersion(): string {
  try {
    return (JSON.parse(fs.readFileSync(path.join(appRoot(), 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

const packageVersion = readVersion();

async function databaseAnswers(ctx: AppContext): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), DATABASE_CHECK_MS);
  });
  // A read of a real table, not a bare SELECT 1, so a missing or unreadable file shows.
  const read = ctx.db.sequelize.query('SELECT 1 FROM schema_migrations LIMIT 1').then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([read, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What `GET /healthz` answers monitors (docs/install.md#running-as-a-service): one cheap read of
 * the database, the version, and the process's role. Declared in server/routes/health/health.ts.
 */
export async function healthOf(ctx: AppContext) {
  const ok = await databaseAnswers(ctx);
  const state = ok ? { status: 'ok', database: 'ok' } : { status: 'unavailable', database: 'unavailable' };
  return { ok, body: { ...state, version: packageVersion, role: ctx.config.role } };
}
