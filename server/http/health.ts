import fs from 'node:fs';
import path from 'node:path';
import type { RequestHandler } from 'express';
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
 * `GET /healthz` for monitors (docs/install.md#running-as-a-service): no key, never cached, one
 * cheap read. 200 while the database answers, 503 when it cannot be read; says the process's role.
 */
export function healthCheck(ctx: AppContext): RequestHandler {
  const version = readVersion();
  return async (_req, res) => {
    const ok = await databaseAnswers(ctx);
    res
      .status(ok ? 200 : 503)
      .set('Cache-Control', 'no-store')
      .json({ ...(ok ? { status: 'ok', database: 'ok' } : { status: 'unavailable', database: 'unavailable' }), version, role: ctx.config.role });
  };
}
