import { createCurriculum, listAllCurricula, newCurriculumSchema, publishCurriculum } from '../../commands/alpha/curricula.js';
import { approveBatch, rejectBatch } from '../../commands/wallet/coupons.js';
import { createInstitution, findInstitution, listInstitutions, setInstitutionStatus } from '../../commands/institutions/institutions.js';
import { setAllowance } from '../../commands/wallet/merits.js';
import { listAllBatches, listAllowances } from '../../commands/operator/all-institutions.js';
import { pageOf } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';
import { clearSmtpSettings, getSmtpSettings, setSmtpSettings, smtpSettingsInput } from '../../mail/smtp-settings.js';
import { sendTestMessage } from '../../mail/test-message.js';
import { presentInstitutionSummary } from '../../presenters/institution.js';
import { presentBatchPage, presentDecidedBatch, presentOperatorAllowance, presentOperatorCurricula } from '../../presenters/operator.js';
import {
  allowanceBody,
  batchesQuery,
  batchParams,
  createBody,
  curriculaQuery,
  curriculumParams,
  institutionParams,
  institutionSchema,
  operatorAllowanceSchema,
  operatorBatchSchema,
  operatorCurriculumSchema,
  smtpSchema,
  testMailBody,
  testMailSchema,
} from './schema.js';
import { defineRoute, type AnyPortalRoute } from '../../http/route.js';

/**
 * The appliance operator's pages, on the CLI's commands: institutions (`institution …`), the mail
 * server (`smtp …`), coupon batches (`coupons approve|reject`), merit allowances
 * (`merits allowance`) and curricula (`curriculum create|publish`). Suspending an institution
 * takes effect on every key of it at its next request; approving restores them.
 */
export const operatorRoutes: AnyPortalRoute[] = [
  defineRoute({
    method: 'get',
    path: '/operator/institutions',
    operationId: 'listInstitutions',
    tag: 'Operator',
    summary: 'Every institution on the appliance',
    caller: 'operator',
    response: z.array(institutionSchema),
    handler: async ({ ctx }) => (await listInstitutions(ctx.db)).map(presentInstitutionSummary),
  }),
  defineRoute({
    method: 'post',
    path: '/operator/institutions',
    operationId: 'createInstitution',
    tag: 'Operator',
    summary: 'Create an institution, pending unless `approve` is true',
    caller: 'operator',
    body: createBody,
    response: institutionSchema,
    handler: async ({ ctx, body }) => presentInstitutionSummary(await createInstitution(ctx.db, body)),
  }),
  defineRoute({
    method: 'post',
    path: '/operator/institutions/{id}/approve',
    operationId: 'approveInstitution',
    tag: 'Operator',
    auditInstitution: ({ params }) => params.id,
    summary: 'Approve an institution (or lift its suspension)',
    caller: 'operator',
    params: institutionParams,
    response: institutionSchema,
    handler: async ({ ctx, params }) => presentInstitutionSummary(await setInstitutionStatus(ctx.db, params.id, 'approved')),
  }),
  defineRoute({
    method: 'post',
    path: '/operator/institutions/{id}/suspend',
    operationId: 'suspendInstitution',
    tag: 'Operator',
    auditInstitution: ({ params }) => params.id,
    summary: 'Suspend an approved institution: its keys stop working at once',
    caller: 'operator',
    params: institutionParams,
    response: institutionSchema,
    handler: async ({ ctx, params }) => presentInstitutionSummary(await setInstitutionStatus(ctx.db, params.id, 'suspended')),
  }),

  defineRoute({
    method: 'get',
    path: '/operator/smtp',
    operationId: 'getSmtpSettings',
    tag: 'Operator',
    summary: 'The outgoing mail server, or null; the password is never answered, only whether one is set',
    caller: 'operator',
    response: smtpSchema,
    handler: async ({ ctx }) => getSmtpSettings(ctx.db),
  }),
  defineRoute({
    method: 'put',
    path: '/operator/smtp',
    operationId: 'saveSmtpSettings',
    tag: 'Operator',
    summary: 'Save the mail server (as `smtp set`); without `password` the stored one is kept for the same user',
    caller: 'operator',
    body: smtpSettingsInput,
    response: smtpSchema,
    handler: async ({ ctx, body }) => setSmtpSettings(ctx.db, body),
  }),
  defineRoute({
    method: 'delete',
    path: '/operator/smtp',
    operationId: 'clearSmtpSettings',
    tag: 'Operator',
    summary: 'Remove the mail server (as `smtp clear`); mail then waits in the outbox',
    caller: 'operator',
    response: smtpSchema,
    handler: async ({ ctx }) => {
      await clearSmtpSettings(ctx.db);
      return getSmtpSettings(ctx.db);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/operator/smtp/test',
    operationId: 'testSmtpSettings',
    tag: 'Operator',
    summary: 'Send a test message through the saved mail server and say whether it was accepted',
    caller: 'operator',
    body: testMailBody,
    response: testMailSchema,
    handler: async ({ ctx, body }) => sendTestMessage(ctx.db, ctx.logger, await ctx.publicUrl(), body.to),
  }),

  defineRoute({
    method: 'get',
    path: '/operator/coupon-batches',
    operationId: 'listAllCouponBatches',
    tag: 'Operator',
    summary: "Every institution's coupon batches, pending first",
    caller: 'operator',
    query: batchesQuery,
    response: pageOf(operatorBatchSchema),
    handler: async ({ ctx, query }) => presentBatchPage(await listAllBatches(ctx.db, query), query),
  }),
  defineRoute({
    method: 'post',
    path: '/operator/coupon-batches/{batchId}/approve',
    operationId: 'approveCouponBatch',
    tag: 'Operator',
    auditInstitution: ({ result }) => result.institution?.id ?? null,
    summary: 'Approve a pending batch (as `coupons approve`): its codes are generated now',
    caller: 'operator',
    params: batchParams,
    response: operatorBatchSchema,
    handler: async ({ ctx, params }) => presentDecidedBatch(ctx.db, await approveBatch(ctx.db, params.batchId)),
  }),
  defineRoute({
    method: 'post',
    path: '/operator/coupon-batches/{batchId}/reject',
    operationId: 'rejectCouponBatch',
    tag: 'Operator',
    auditInstitution: ({ result }) => result.institution?.id ?? null,
    summary: 'Reject a pending batch (as `coupons reject`); it never gets codes',
    caller: 'operator',
    params: batchParams,
    response: operatorBatchSchema,
    handler: async ({ ctx, params }) => presentDecidedBatch(ctx.db, await rejectBatch(ctx.db, params.batchId)),
  }),

  defineRoute({
    method: 'get',
    path: '/operator/allowances',
    operationId: 'listMeritAllowances',
    tag: 'Operator',
    summary: "Every institution's merit allowance: total, used and remaining cents",
    caller: 'operator',
    response: z.array(operatorAllowanceSchema),
    handler: async ({ ctx }) => (await listAllowances(ctx.db)).map(({ institution, allowance }) => presentOperatorAllowance(institution, allowance)),
  }),
  defineRoute({
    method: 'put',
    path: '/operator/allowances/{id}',
    operationId: 'setMeritAllowance',
    tag: 'Operator',
    auditInstitution: ({ params }) => params.id,
    summary: 'Set what an institution may credit in total (as `merits allowance`); never below what it already credited',
    caller: 'operator',
    params: institutionParams,
    body: allowanceBody,
    response: operatorAllowanceSchema,
    handler: async ({ ctx, params, body }) => {
      const allowance = await setAllowance(ctx.db, params.id, body.total_cents);
      return presentOperatorAllowance(await findInstitution(ctx.db, params.id), allowance);
    },
  }),

  defineRoute({
    method: 'get',
    path: '/operator/curricula',
    operationId: 'listAllCurricula',
    tag: 'Operator',
    summary: 'Every curriculum, drafts included, with its institution (null: shared)',
    caller: 'operator',
    query: curriculaQuery,
    response: z.array(operatorCurriculumSchema),
    handler: async ({ ctx, query }) => presentOperatorCurricula(ctx.db, await listAllCurricula(ctx.db, query.status)),
  }),
  defineRoute({
    method: 'post',
    path: '/operator/curricula',
    operationId: 'createCurriculum',
    tag: 'Operator',
    auditInstitution: ({ result }) => result.institution?.id ?? null,
    summary: 'Create a curriculum (as `curriculum create`): shared unless `institution_id`, a draft unless `publish`',
    caller: 'operator',
    body: newCurriculumSchema,
    response: operatorCurriculumSchema,
    handler: async ({ ctx, body }) => (await presentOperatorCurricula(ctx.db, [await createCurriculum(ctx.db, body)]))[0]!,
  }),
  defineRoute({
    method: 'post',
    path: '/operator/curricula/{curriculumId}/publish',
    operationId: 'publishCurriculum',
    tag: 'Operator',
    auditInstitution: ({ result }) => result.institution?.id ?? null,
    summary: 'Publish a draft curriculum (as `curriculum publish`)',
    caller: 'operator',
    params: curriculumParams,
    response: operatorCurriculumSchema,
    handler: async ({ ctx, params }) => (await presentOperatorCurricula(ctx.db, [await publishCurriculum(ctx.db, params.curriculumId)]))[0]!,
  }),
];
