import fs from 'node:fs/promises';
import path from 'node:path';
import { Op, type Transaction } from 'sequelize';
import type { Database } from '../../db/index.js';
import { notFound } from '../../errors.js';
import { uploadsRoot } from '../../files/storage.js';
import { newId } from '../../ids.js';
import type { InstitutionRow } from '../../models/institution.js';
import { uniqueEmailDomain } from './institutions.js';

/**
 * An institution's sandbox is a second institution row with `sandbox_of` = the live one: every
 * tenant scope isolates it as it isolates any other institution, so no list needs a filter of its
 * own (docs/decisions/sandbox.md). It is made on first need, approved, with the live one's name and
 * a copy of its integration config; nothing else is copied.
 */

async function sandboxRow(db: Database, liveId: string, transaction: Transaction | null): Promise<InstitutionRow | null> {
  return db.models.Institution.findOne({ where: { sandbox_of: liveId }, transaction });
}

async function liveRow(db: Database, liveId: string, transaction: Transaction | null): Promise<InstitutionRow> {
  const live = await db.models.Institution.findOne({ where: { id: liveId, sandbox_of: null }, transaction });
  if (!live) throw notFound('institution');
  return live;
}

async function insertSandbox(db: Database, live: InstitutionRow, transaction: Transaction, id = newId('inst'), emailDomain?: string): Promise<InstitutionRow> {
  const domain =
    emailDomain ??
    (await uniqueEmailDomain(async (pattern) => {
      const rows = await db.models.Institution.findAll({ attributes: ['email_domain'], where: { email_domain: { [Op.like]: pattern } }, transaction });
      return rows.flatMap((row) => (row.email_domain ? [row.email_domain] : []));
    }, `${live.name} sandbox`));
  return db.models.Institution.create(
    { id, name: live.name, status: 'approved', config: live.config, email_domain: domain, sandbox_of: live.id },
    { transaction },
  );
}

/** The live institution's sandbox, made now if it has none yet. In `transaction` when given. */
export async function ensureSandbox(db: Database, liveId: string, transaction: Transaction | null = null): Promise<InstitutionRow> {
  if (!transaction) return db.sequelize.transaction((tx) => ensureSandbox(db, liveId, tx));
  const existing = await sandboxRow(db, liveId, transaction);
  if (existing) return existing;
  return insertSandbox(db, await liveRow(db, liveId, transaction), transaction);
}

/** The sandboxes' ids of those live institutions that have one, by live id. */
export async function sandboxIdsOf(db: Database, liveIds: readonly string[]): Promise<Map<string, string>> {
  if (liveIds.length === 0) return new Map();
  const rows = await db.models.Institution.findAll({ attributes: ['id', 'sandbox_of'], where: { sandbox_of: { [Op.in]: [...liveIds] } } });
  return new Map(rows.flatMap((row) => (row.sandbox_of ? [[row.sandbox_of, row.id] as const] : [])));
}

/** The sandbox, or null when the institution has none yet. */
export function findSandbox(db: Database, liveId: string): Promise<InstitutionRow | null> {
  return sandboxRow(db, liveId, null);
}

/**
 * Empties the sandbox: its row is deleted, which deletes every row of its data (every
 * `institution_id` references institutions ON DELETE CASCADE), and made again under the same id,
 * so its sandbox keys (rows of the live institution) keep working and the portal's address of it
 * stays. Its config is copied from the live institution again. Its stored files go after the commit.
 */
export async function resetSandbox(db: Database, dataDir: string, liveId: string): Promise<InstitutionRow> {
  const sandbox = await db.sequelize.transaction(async (transaction) => {
    const live = await liveRow(db, liveId, transaction);
    const existing = await sandboxRow(db, liveId, transaction);
    if (!existing) return insertSandbox(db, live, transaction);
    const { id, email_domain } = existing;
    await existing.destroy({ transaction });
    return insertSandbox(db, live, transaction, id, email_domain ?? undefined);
  });
  await fs.rm(path.join(uploadsRoot(dataDir), sandbox.id), { recursive: true, force: true });
  return sandbox;
}
