import { Op } from 'sequelize';
import type { Database } from '../../db/index.js';
import { Tenant, type TenantTx } from '../../db/tenant.js';
import { type Page, type PageRequest } from '../../db/paging.js';
import { notFound, validationError } from '../../errors.js';
import { parseInput } from '../../validation/parse.js';
import { z } from '../../validation/zod.js';
import { newId } from '../../ids.js';
import type { AlphaConceptRow, AlphaCurriculumRow, CurriculumStatus } from '../../models/alpha.js';
import { findInstitution } from '../institutions/institutions.js';

const emptyPage = <T>(request: PageRequest): Page<T> => ({ items: [], page: request.page, limit: request.limit, total: 0, totalPages: 0 });

export interface CurriculumWithConcepts {
  curriculum: AlphaCurriculumRow;
  concepts: AlphaConceptRow[];
}

const conceptQuery = (curriculumIds: readonly string[]) => ({
  where: { curriculum_id: { [Op.in]: [...curriculumIds] } },
  order: [
    ['curriculum_id', 'ASC'],
    ['position', 'ASC'],
  ] as [string, string][],
});

function byCurriculum(curriculumIds: readonly string[], rows: AlphaConceptRow[]): Map<string, AlphaConceptRow[]> {
  const grouped = new Map<string, AlphaConceptRow[]>(curriculumIds.map((id) => [id, []]));
  for (const row of rows) grouped.get(row.curriculum_id)?.push(row);
  return grouped;
}

/**
 * Concepts of the given curricula, each list in the curriculum's order. Callers pass ids they may
 * see (from `tenant.alphaCurricula`), or `db` for the operator, who sees every curriculum.
 */
export async function conceptsOf(from: Tenant | Database, curriculumIds: readonly string[]): Promise<Map<string, AlphaConceptRow[]>> {
  if (curriculumIds.length === 0) return byCurriculum(curriculumIds, []);
  const query = conceptQuery(curriculumIds);
  const rows = from instanceof Tenant ? await from.appliance.alphaConcepts.findAll(query) : await from.models.AlphaConcept.findAll(query);
  return byCurriculum(curriculumIds, rows);
}

async function withConcepts(from: Tenant | Database, curricula: AlphaCurriculumRow[]): Promise<CurriculumWithConcepts[]> {
  const concepts = await conceptsOf(
    from,
    curricula.map((row) => row.id),
  );
  return curricula.map((curriculum) => ({ curriculum, concepts: concepts.get(curriculum.id) ?? [] }));
}

/**
 * The operator's view: every curriculum on the appliance, drafts and every institution's included
 * (institutions see only published ones), oldest first.
 */
export async function listAllCurricula(db: Database, status?: AlphaCurriculumRow['status']): Promise<CurriculumWithConcepts[]> {
  const curricula = await db.models.AlphaCurriculum.findAll({
    where: status ? { status } : {},
    order: [
      ['created_at', 'ASC'],
      ['id', 'ASC'],
    ],
  });
  return withConcepts(db, curricula);
}

export interface CurriculumFilter extends PageRequest {
  /** Drafts are never visible to the API, so `draft` always gives an empty page. */
  status?: CurriculumStatus | undefined;
}

/** Published curricula of the institution and shared ones, oldest first. */
export async function listCurricula(tenant: Tenant, filter: CurriculumFilter): Promise<Page<CurriculumWithConcepts>> {
  if (filter.status === 'draft') return emptyPage(filter);
  const curricula = tenant.alphaCurricula;
  const where = { status: 'published' } as const;
  const [total, rows] = await Promise.all([
    curricula.count(where),
    curricula.findAll({
      where,
      order: [
        ['created_at', 'ASC'],
        ['id', 'ASC'],
      ],
      limit: filter.limit,
      offset: (filter.page - 1) * filter.limit,
    }),
  ]);
  return { items: await withConcepts(tenant, rows), page: filter.page, limit: filter.limit, total, totalPages: Math.ceil(total / filter.limit) };
}

/** A curriculum a body may name for enrolling: visible and published; anything else is `422` at `curriculum_id`. */
export async function findEnrollableCurriculum(tx: TenantTx, id: string): Promise<AlphaCurriculumRow> {
  const curriculum = await tx.alphaCurricula.findById(id);
  if (!curriculum || curriculum.status !== 'published') {
    throw validationError([{ path: 'curriculum_id', message: `"${id}" is not a published curriculum available to this institution.` }]);
  }
  return curriculum;
}

const conceptName = z.string().trim().min(1).max(200);

export const newCurriculumSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000).default(''),
  concepts: z
    .array(conceptName)
    .min(1)
    .max(200)
    .refine((names) => new Set(names.map((name) => name.toLowerCase())).size === names.length, 'Concept names must be distinct.'),
  institution_id: z.string().min(1).nullable().default(null),
  publish: z.boolean().default(false),
});

export type NewCurriculum = z.input<typeof newCurriculumSchema>;

/**
 * A curriculum and its concepts (operator side: the CLI). Without an institution it is shared by
 * every institution. Made as a draft unless `publish`. No event: the catalog has none for curricula,
 * and a shared one has no institution whose stream could carry it.
 */
export async function createCurriculum(db: Database, input: NewCurriculum): Promise<CurriculumWithConcepts> {
  const parsed = parseInput(newCurriculumSchema, input);
  if (parsed.institution_id !== null) await findInstitution(db, parsed.institution_id);
  return db.sequelize.transaction(async (transaction) => {
    const curriculum = await db.models.AlphaCurriculum.create(
      {
        id: newId('cur'),
        institution_id: parsed.institution_id,
        name: parsed.name,
        description: parsed.description,
        status: parsed.publish ? 'published' : 'draft',
      },
      { transaction },
    );
    const concepts = await db.models.AlphaConcept.bulkCreate(
      parsed.concepts.map((name, position) => ({ id: newId('con'), curriculum_id: curriculum.id, name, position })),
      { transaction },
    );
    return { curriculum, concepts };
  });
}

/** Publishes a draft (operator side); publishing a published curriculum is a no-op. */
export async function publishCurriculum(db: Database, id: string): Promise<CurriculumWithConcepts> {
  return db.sequelize.transaction(async (transaction) => {
    const curriculum = await db.models.AlphaCurriculum.findByPk(id, { transaction });
    if (!curriculum) throw notFound('curriculum');
    if (curriculum.status !== 'published') await curriculum.update({ status: 'published' }, { transaction });
    const concepts = await db.models.AlphaConcept.findAll({ where: { curriculum_id: id }, order: [['position', 'ASC']], transaction });
    return { curriculum, concepts };
  });
}
