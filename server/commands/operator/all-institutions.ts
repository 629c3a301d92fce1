import { Op, literal } from 'sequelize';
import type { Database } from '../../db/index.js';
import type { CouponBatchRow } from '../../models/coupon.js';
import type { InstitutionRow } from '../../models/institution.js';
import { listInstitutions } from '../institutions/institutions.js';
import type { Allowance } from '../wallet/merits.js';

// Operator-wide reads. The operator works across institutions by role, so these read the
// tables whole; everything that changes data goes through the CLI's commands.

export async function institutionsById(db: Database, ids: Iterable<string>): Promise<Map<string, InstitutionRow>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await db.models.Institution.findAll({ where: { id: { [Op.in]: unique } } });
  return new Map(rows.map((row) => [row.id, row]));
}

export interface BatchFilter {
  status?: CouponBatchRow['status'];
  page: number;
  limit: number;
}

export interface AllBatchesPage {
  rows: CouponBatchRow[];
  count: number;
  institutions: Map<string, InstitutionRow>;
}

/** Every institution's batches, pending ones first (the operator's queue), then newest first. */
export async function listAllBatches(db: Database, filter: BatchFilter): Promise<AllBatchesPage> {
  // A sandbox's requests are not the operator's to decide: they stay pending (docs/decisions/sandbox.md).
  const notSandbox = { institution_id: { [Op.notIn]: literal('(SELECT id FROM institutions WHERE sandbox_of IS NOT NULL)') } };
  const where = filter.status ? { status: filter.status, ...notSandbox } : notSandbox;
  const { count, rows } = await db.models.CouponBatch.findAndCountAll({
    where,
    order: [
      [literal("CASE WHEN status = 'pending' THEN 0 ELSE 1 END"), 'ASC'],
      ['created_at', 'DESC'],
      ['id', 'ASC'],
    ],
    limit: filter.limit,
    offset: (filter.page - 1) * filter.limit,
  });
  const institutions = await institutionsById(
    db,
    rows.map((row) => row.institution_id),
  );
  return { rows, count, institutions };
}

// BIGINT columns may come back as strings from some drivers; money is always a JS integer here.
const cents = (value: number | string | bigint) => Number(value);

export interface InstitutionAllowance {
  institution: InstitutionRow;
  allowance: Allowance;
}

/**
 * Every institution's merit allowance, none granted yet reading as zeros (as `readAllowance`).
 * The allowances of all institutions are read in one query (one row per institution at most).
 */
export async function listAllowances(db: Database): Promise<InstitutionAllowance[]> {
  const institutions = await listInstitutions(db);
  if (institutions.length === 0) return [];
  const rows = await db.models.MeritAllowance.findAll({ where: { institution_id: { [Op.in]: institutions.map((row) => row.id) } } });
  const byInstitution = new Map(rows.map((row) => [row.institution_id, row]));
  return institutions.map((institution) => {
    const row = byInstitution.get(institution.id);
    const total = row ? cents(row.total_cents) : 0;
    const used = row ? cents(row.used_cents) : 0;
    return { institution, allowance: { total_cents: total, used_cents: used, remaining_cents: total - used } };
  });
}
