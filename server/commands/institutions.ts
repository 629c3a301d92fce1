import type { Database } from '../db/index.js';
import { AppError, notFound } from '../errors.js';
import { z } from '../http/zod.js';
import { parseInput } from '../http/validate.js';
import { newId } from '../ids.js';
import type { InstitutionRow, InstitutionStatus, IntegrationConfig } from '../models/institution.js';

export const DEFAULT_INTEGRATION_CONFIG: IntegrationConfig = {
  default_ai_policy: { allowed: false, model_tier: 'standard', max_interactions: 0 },
  default_proctoring: { camera: false, screen: false },
  allowed_toolchains: [],
  toolchain_mirror: null,
  lms: {},
};

export const institutionNameSchema = z.string().trim().min(1).max(200);

export async function createInstitution(db: Database, input: { name: string; approve?: boolean }): Promise<InstitutionRow> {
  const name = parseInput(institutionNameSchema, input.name);
  return db.models.Institution.create({
    id: newId('inst'),
    name,
    status: input.approve ? 'approved' : 'pending',
    config: DEFAULT_INTEGRATION_CONFIG,
  });
}

export async function findInstitution(db: Database, id: string): Promise<InstitutionRow> {
  const institution = await db.models.Institution.findByPk(id);
  if (!institution) throw notFound('institution');
  return institution;
}

/**
 * Approve or suspend. Suspension takes effect on the next request of every key (nothing is cached);
 * approval restores the same keys.
 */
export async function setInstitutionStatus(db: Database, id: string, status: Exclude<InstitutionStatus, 'pending'>): Promise<InstitutionRow> {
  const institution = await findInstitution(db, id);
  if (institution.status !== status) {
    if (status === 'suspended' && institution.status === 'pending') {
      throw new AppError('conflict', 'A pending institution cannot be suspended; approve it first or leave it pending.');
    }
    await institution.update({ status });
  }
  return institution;
}

export function listInstitutions(db: Database): Promise<InstitutionRow[]> {
  return db.models.Institution.findAll({ order: [['created_at', 'ASC']] });
}
