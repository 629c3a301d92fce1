import { Op, type Transaction } from 'sequelize';
import type { Database } from '../../db/index.js';
import type { TenantTx } from '../../db/tenant.js';
import { AppError, notFound } from '../../errors.js';
import { z } from '../../validation/zod.js';
import { parseInput } from '../../validation/parse.js';
import { newId } from '../../ids.js';
import type { InstitutionRow, InstitutionStatus, IntegrationConfig } from '../../models/institution.js';

export const DEFAULT_INTEGRATION_CONFIG: IntegrationConfig = {
  default_ai_policy: { allowed: false, model_tier: 'standard', max_interactions: 0 },
  default_proctoring: { camera: false, screen: false },
  allowed_toolchains: [],
  toolchain_mirror: null,
  lms: {},
};

export const institutionNameSchema = z.string().trim().min(1).max(200);

const EMAIL_DOMAIN_SUFFIX = 'campusbridge.local';

function slugOf(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return slug || 'school';
}

/** `riverside-high.campusbridge.local`, then `riverside-high-2…` when another institution has it. */
export async function uniqueEmailDomain(domainsLike: (pattern: string) => Promise<string[]>, name: string): Promise<string> {
  const slug = slugOf(name);
  const used = new Set(await domainsLike(`${slug}%.${EMAIL_DOMAIN_SUFFIX}`));
  for (let n = 1; ; n += 1) {
    const candidate = `${slug}${n === 1 ? '' : `-${n}`}.${EMAIL_DOMAIN_SUFFIX}`;
    if (!used.has(candidate)) return candidate;
  }
}

/** The domain of the institution's generated login emails, assigned on first need and then fixed. */
export async function ensureEmailDomain(tx: TenantTx): Promise<string> {
  const institution = await tx.institution();
  if (institution.email_domain) return institution.email_domain;
  const domain = await uniqueEmailDomain(tx.appliance.emailDomainsLike, institution.name);
  await institution.update({ email_domain: domain }, { transaction: tx.tx });
  return domain;
}

/** Every institution is born here, from the CLI, setup or (later) the portal. */
export async function insertInstitution(
  db: Database,
  input: { name: string; status: InstitutionStatus },
  transaction: Transaction | null = null,
): Promise<InstitutionRow> {
  const name = parseInput(institutionNameSchema, input.name);
  return db.models.Institution.create(
    {
      id: newId('inst'),
      name,
      status: input.status,
      config: DEFAULT_INTEGRATION_CONFIG,
      email_domain: await uniqueEmailDomain(async (pattern) => {
        const rows = await db.models.Institution.findAll({ attributes: ['email_domain'], where: { email_domain: { [Op.like]: pattern } }, transaction });
        return rows.flatMap((row) => (row.email_domain ? [row.email_domain] : []));
      }, name),
    },
    { transaction },
  );
}

export async function createInstitution(db: Database, input: { name: string; approve?: boolean }): Promise<InstitutionRow> {
  return db.sequelize.transaction((transaction) => insertInstitution(db, { name: input.name, status: input.approve ? 'approved' : 'pending' }, transaction));
}

export async function findInstitution(db: Database, id: string): Promise<InstitutionRow> {
  const institution = await db.models.Institution.findByPk(id);
  if (!institution) throw notFound('institution');
  return institution;
}

/**
 * Approve or suspend. Suspension takes effect on the next request of every key (the key cache
 * is exact: server/http/key-cache.ts); approval restores the same keys.
 */
export async function setInstitutionStatus(db: Database, id: string, status: Exclude<InstitutionStatus, 'pending'>): Promise<InstitutionRow> {
  const institution = await findInstitution(db, id);
  // A sandbox follows its live institution's status (its keys are checked against that one): never set on its own.
  if (institution.sandbox_of) throw notFound('institution');
  if (institution.status !== status) {
    if (status === 'suspended' && institution.status === 'pending') {
      throw new AppError('conflict', 'A pending institution cannot be suspended; approve it first or leave it pending.');
    }
    await db.sequelize.transaction((transaction) => institution.update({ status }, { transaction }));
  }
  return institution;
}

/** The appliance's institutions; sandboxes are part of their live institution, never listed (docs/decisions/sandbox.md). */
export function listInstitutions(db: Database): Promise<InstitutionRow[]> {
  return db.models.Institution.findAll({ where: { sandbox_of: null }, order: [['created_at', 'ASC']] });
}
