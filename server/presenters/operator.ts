import type { CurriculumWithConcepts } from '../commands/alpha/curricula.js';
import { findInstitution } from '../commands/institutions/institutions.js';
import type { Allowance } from '../commands/wallet/merits.js';
import { institutionsById, type AllBatchesPage, type BatchFilter } from '../commands/operator/all-institutions.js';
import type { Database } from '../db/index.js';
import type { CouponBatchRow } from '../models/coupon.js';
import type { InstitutionRow } from '../models/institution.js';
import { presentCurriculum } from './alpha.js';
import { iso } from './common.js';
import { presentBatch } from './coupon.js';
import { presentInstitutionSummary } from './institution.js';

const refOf = (row: InstitutionRow | undefined, id: string) => ({ id, name: row?.name ?? id });

export function presentOperatorBatch(batch: CouponBatchRow, institution: InstitutionRow | undefined) {
  return { ...presentBatch(batch), institution: refOf(institution, batch.institution_id), decided_at: iso(batch.decided_at) };
}

export function presentBatchPage({ rows, count, institutions }: AllBatchesPage, filter: BatchFilter) {
  return {
    items: rows.map((row) => presentOperatorBatch(row, institutions.get(row.institution_id))),
    page: filter.page,
    limit: filter.limit,
    total: count,
    totalPages: Math.ceil(count / filter.limit),
  };
}

export async function presentDecidedBatch(db: Database, batch: CouponBatchRow) {
  return presentOperatorBatch(batch, await findInstitution(db, batch.institution_id));
}

export function presentOperatorAllowance(institution: InstitutionRow, allowance: Allowance) {
  return { ...allowance, institution: presentInstitutionSummary(institution) };
}

export async function presentOperatorCurricula(db: Database, list: CurriculumWithConcepts[]) {
  const institutions = await institutionsById(
    db,
    list.flatMap(({ curriculum }) => (curriculum.institution_id ? [curriculum.institution_id] : [])),
  );
  return list.map((item) => {
    const owner = item.curriculum.institution_id;
    return {
      ...presentCurriculum(item),
      institution: owner ? refOf(institutions.get(owner), owner) : null,
      created_at: item.curriculum.created_at.toISOString(),
    };
  });
}
