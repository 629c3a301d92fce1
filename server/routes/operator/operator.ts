import { Op, literal } from 'sequelize';
import { createCurriculum, listAllCurricula, newCurriculumSchema, publishCurriculum, type CurriculumWithConcepts } from '../../commands/alpha/curricula.js';
import { approveBatch, rejectBatch } from '../../commands/coupons.js';
import { createInstitution, findInstitution, institutionNameSchema, listInstitutions, setInstitutionStatus } from '../../commands/institutions.js';
import { MAX_ALLOWANCE_CENTS, readAllowance, setAllowance, type Allowance } from '../../commands/merits.js';
import type { Database } from '../../db/index.js';
import { Tenant } from '../../db/tenant.js';
import { pageOf, pageQuery } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';
import { clearSmtpSettings, getSmtpSettings, setSmtpSettings, smtpSettingsInput } from '../../mail/smtp-settings.js';
import { sendTestMessage } from '../../mail/test-message.js';
import type { CouponBatchRow } from '../../models/coupon.js';
import type { InstitutionRow } from '../../models/institution.js';
import { MAIL_STATUSES } from '../../models/mail.js';
import { presentCurriculum } from '../../presenters/alpha.js';
import { iso } from '../../presenters/common.js';
import { presentBatch } from '../../presenters/coupon.js';
import { presentInstitutionSummary } from '../../presenters/institution.js';
import { curriculumSchema } from '../alpha/schema.js';
import { batchSchema, batchStatus } from '../coupons/schema.js';
import { allowanceSchema } from '../merits/schema.js';
import { definePortalRoute, type AnyPortalRoute } from '../../http/route.js';

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

export const institutionSchema = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(['pending', 'approved', 'suspended']),
  created_at: z.string(),
});

/** Which institution a row belongs to; null for what every institution shares. */
export const institutionRef = z.object({ id: z.string(), name: z.string() });

export const operatorBatchSchema = batchSchema.extend({ institution: institutionRef, decided_at: z.string().nullable() });
export const operatorAllowanceSchema = allowanceSchema.extend({ institution: institutionSchema });
export const operatorCurriculumSchema = curriculumSchema.extend({
  status: z.enum(['draft', 'published']),
  institution: institutionRef.nullable(),
  created_at: z.string(),
});

export const smtpSchema = z
  .object({
    host: z.string(),
    port: z.number().int(),
    secure: z.boolean(),
    user: z.string().nullable(),
    from: z.string(),
    /** The password itself is never answered. */
    password_set: z.boolean(),
    updated_at: z.string(),
  })
  .nullable();

export const testMailSchema = z.object({
  mail_id: z.string(),
  to: z.string(),
  /** `sent`: the server accepted it; `failed`: it refused or could not be reached (see `error`); `queued`: older mail is still ahead of it. */
  status: z.enum(MAIL_STATUSES),
  error: z.string().nullable(),
});

const institutionParams = z.strictObject({ id: z.string().min(1).max(40) });
const batchParams = z.strictObject({ batchId: z.string().min(1).max(40) });
const curriculumParams = z.strictObject({ curriculumId: z.string().min(1).max(40) });

const createBody = z.strictObject({ name: institutionNameSchema, approve: z.boolean().default(false) });
const allowanceBody = z.strictObject({ total_cents: z.number().int().min(0).max(MAX_ALLOWANCE_CENTS) });
const testMailBody = z.strictObject({ to: z.email().max(320) });

const batchesQuery = z.strictObject({ status: batchStatus.optional(), ...pageQuery });
const curriculaQuery = z.strictObject({ status: z.enum(['draft', 'published']).optional() });

// ---------------------------------------------------------------------------------------------
// Operator-wide reads. The operator works across institutions by role, so these read the
// tables whole; everything that changes data goes through the CLI's commands.
// ---------------------------------------------------------------------------------------------

async function institutionsById(db: Database, ids: Iterable<string>): Promise<Map<string, InstitutionRow>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await db.models.Institution.findAll({ where: { id: { [Op.in]: unique } } });
  return new Map(rows.map((row) => [row.id, row]));
}

const refOf = (row: InstitutionRow | undefined, id: string) => ({ id, name: row?.name ?? id });

function presentOperatorBatch(batch: CouponBatchRow, institution: InstitutionRow | undefined): z.input<typeof operatorBatchSchema> {
  return { ...presentBatch(batch), institution: refOf(institution, batch.institution_id), decided_at: iso(batch.decided_at) };
}

/** Every institution's batches, pending ones first (the operator's queue), then newest first. */
async function listAllBatches(db: Database, filter: z.output<typeof batchesQuery>) {
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
  return {
    items: rows.map((row) => presentOperatorBatch(row, institutions.get(row.institution_id))),
    page: filter.page,
    limit: filter.limit,
    total: count,
    totalPages: Math.ceil(count / filter.limit),
  };
}

async function presentDecidedBatch(db: Database, batch: CouponBatchRow) {
  return presentOperatorBatch(batch, await findInstitution(db, batch.institution_id));
}

function presentOperatorAllowance(institution: InstitutionRow, allowance: Allowance): z.input<typeof operatorAllowanceSchema> {
  return { ...allowance, institution: presentInstitutionSummary(institution) };
}

async function listAllowances(db: Database) {
  const institutions = await listInstitutions(db);
  return Promise.all(institutions.map(async (row) => presentOperatorAllowance(row, await readAllowance(new Tenant(db, row.id)))));
}

async function presentOperatorCurricula(db: Database, list: CurriculumWithConcepts[]): Promise<Array<z.input<typeof operatorCurriculumSchema>>> {
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

// ---------------------------------------------------------------------------------------------
// The test message
// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------

/**
 * The appliance operator's pages, on the CLI's commands: institutions (`institution …`), the mail
 * server (`smtp …`), coupon batches (`coupons approve|reject`), merit allowances
 * (`merits allowance`) and curricula (`curriculum create|publish`). Suspending an institution
 * takes effect on every key of it at its next request; approving restores them.
 */
export const operatorRoutes: AnyPortalRoute[] = [
  definePortalRoute({
    method: 'get',
    path: '/operator/institutions',
    operationId: 'listInstitutions',
    tag: 'Operator',
    summary: 'Every institution on the appliance',
    access: 'operator',
    response: z.array(institutionSchema),
    handler: async ({ ctx }) => (await listInstitutions(ctx.db)).map(presentInstitutionSummary),
  }),
  definePortalRoute({
    method: 'post',
    path: '/operator/institutions',
    operationId: 'createInstitution',
    tag: 'Operator',
    summary: 'Create an institution, pending unless `approve` is true',
    access: 'operator',
    body: createBody,
    response: institutionSchema,
    handler: async ({ ctx, body }) => presentInstitutionSummary(await createInstitution(ctx.db, body)),
  }),
  definePortalRoute({
    method: 'post',
    path: '/operator/institutions/{id}/approve',
    operationId: 'approveInstitution',
    tag: 'Operator',
    auditInstitution: ({ params }) => params.id,
    summary: 'Approve an institution (or lift its suspension)',
    access: 'operator',
    params: institutionParams,
    response: institutionSchema,
    handler: async ({ ctx, params }) => presentInstitutionSummary(await setInstitutionStatus(ctx.db, params.id, 'approved')),
  }),
  definePortalRoute({
    method: 'post',
    path: '/operator/institutions/{id}/suspend',
    operationId: 'suspendInstitution',
    tag: 'Operator',
    auditInstitution: ({ params }) => params.id,
    summary: 'Suspend an approved institution: its keys stop working at once',
    access: 'operator',
    params: institutionParams,
    response: institutionSchema,
    handler: async ({ ctx, params }) => presentInstitutionSummary(await setInstitutionStatus(ctx.db, params.id, 'suspended')),
  }),

  definePortalRoute({
    method: 'get',
    path: '/operator/smtp',
    operationId: 'getSmtpSettings',
    tag: 'Operator',
    summary: 'The outgoing mail server, or null; the password is never answered, only whether one is set',
    access: 'operator',
    response: smtpSchema,
    handler: async ({ ctx }) => getSmtpSettings(ctx.db),
  }),
  definePortalRoute({
    method: 'put',
    path: '/operator/smtp',
    operationId: 'saveSmtpSettings',
    tag: 'Operator',
    summary: 'Save the mail server (as `smtp set`); without `password` the stored one is kept for the same user',
    access: 'operator',
    body: smtpSettingsInput,
    response: smtpSchema,
    handler: async ({ ctx, body }) => setSmtpSettings(ctx.db, body),
  }),
  definePortalRoute({
    method: 'delete',
    path: '/operator/smtp',
    operationId: 'clearSmtpSettings',
    tag: 'Operator',
    summary: 'Remove the mail server (as `smtp clear`); mail then waits in the outbox',
    access: 'operator',
    response: smtpSchema,
    handler: async ({ ctx }) => {
      await clearSmtpSettings(ctx.db);
      return getSmtpSettings(ctx.db);
    },
  }),
  definePortalRoute({
    method: 'post',
    path: '/operator/smtp/test',
    operationId: 'testSmtpSettings',
    tag: 'Operator',
    summary: 'Send a test message through the saved mail server and say whether it was accepted',
    access: 'operator',
    body: testMailBody,
    response: testMailSchema,
    handler: async ({ ctx, body }) => sendTestMessage(ctx.db, ctx.logger, await ctx.publicUrl(), body.to),
  }),

  definePortalRoute({
    method: 'get',
    path: '/operator/coupon-batches',
    operationId: 'listAllCouponBatches',
    tag: 'Operator',
    summary: "Every institution's coupon batches, pending first",
    access: 'operator',
    query: batchesQuery,
    response: pageOf(operatorBatchSchema),
    handler: async ({ ctx, query }) => listAllBatches(ctx.db, query),
  }),
  definePortalRoute({
    method: 'post',
    path: '/operator/coupon-batches/{batchId}/approve',
    operationId: 'approveCouponBatch',
    tag: 'Operator',
    auditInstitution: ({ result }) => result.institution?.id ?? null,
    summary: 'Approve a pending batch (as `coupons approve`): its codes are generated now',
    access: 'operator',
    params: batchParams,
    response: operatorBatchSchema,
    handler: async ({ ctx, params }) => presentDecidedBatch(ctx.db, await approveBatch(ctx.db, params.batchId)),
  }),
  definePortalRoute({
    method: 'post',
    path: '/operator/coupon-batches/{batchId}/reject',
    operationId: 'rejectCouponBatch',
    tag: 'Operator',
    auditInstitution: ({ result }) => result.institution?.id ?? null,
    summary: 'Reject a pending batch (as `coupons reject`); it never gets codes',
    access: 'operator',
    params: batchParams,
    response: operatorBatchSchema,
    handler: async ({ ctx, params }) => presentDecidedBatch(ctx.db, await rejectBatch(ctx.db, params.batchId)),
  }),

  definePortalRoute({
    method: 'get',
    path: '/operator/allowances',
    operationId: 'listMeritAllowances',
    tag: 'Operator',
    summary: "Every institution's merit allowance: total, used and remaining cents",
    access: 'operator',
    response: z.array(operatorAllowanceSchema),
    handler: async ({ ctx }) => listAllowances(ctx.db),
  }),
  definePortalRoute({
    method: 'put',
    path: '/operator/allowances/{id}',
    operationId: 'setMeritAllowance',
    tag: 'Operator',
    auditInstitution: ({ params }) => params.id,
    summary: 'Set what an institution may credit in total (as `merits allowance`); never below what it already credited',
    access: 'operator',
    params: institutionParams,
    body: allowanceBody,
    response: operatorAllowanceSchema,
    handler: async ({ ctx, params, body }) => {
      const allowance = await setAllowance(ctx.db, params.id, body.total_cents);
      return presentOperatorAllowance(await findInstitution(ctx.db, params.id), allowance);
    },
  }),

  definePortalRoute({
    method: 'get',
    path: '/operator/curricula',
    operationId: 'listAllCurricula',
    tag: 'Operator',
    summary: 'Every curriculum, drafts included, with its institution (null: shared)',
    access: 'operator',
    query: curriculaQuery,
    response: z.array(operatorCurriculumSchema),
    handler: async ({ ctx, query }) => presentOperatorCurricula(ctx.db, await listAllCurricula(ctx.db, query.status)),
  }),
  definePortalRoute({
    method: 'post',
    path: '/operator/curricula',
    operationId: 'createCurriculum',
    tag: 'Operator',
    auditInstitution: ({ result }) => result.institution?.id ?? null,
    summary: 'Create a curriculum (as `curriculum create`): shared unless `institution_id`, a draft unless `publish`',
    access: 'operator',
    body: newCurriculumSchema,
    response: operatorCurriculumSchema,
    handler: async ({ ctx, body }) => (await presentOperatorCurricula(ctx.db, [await createCurriculum(ctx.db, body)]))[0]!,
  }),
  definePortalRoute({
    method: 'post',
    path: '/operator/curricula/{curriculumId}/publish',
    operationId: 'publishCurriculum',
    tag: 'Operator',
    auditInstitution: ({ result }) => result.institution?.id ?? null,
    summary: 'Publish a draft curriculum (as `curriculum publish`)',
    access: 'operator',
    params: curriculumParams,
    response: operatorCurriculumSchema,
    handler: async ({ ctx, params }) => (await presentOperatorCurricula(ctx.db, [await publishCurriculum(ctx.db, params.curriculumId)]))[0]!,
  }),
];
