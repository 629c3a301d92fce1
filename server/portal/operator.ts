import { createInstitution, institutionNameSchema, listInstitutions, setInstitutionStatus } from '../commands/institutions.js';
import { z } from '../http/zod.js';
import { presentInstitutionSummary } from '../presenters/institution.js';
import { definePortalRoute, type PortalRoute } from './route.js';

const institutionSchema = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(['pending', 'approved', 'suspended']),
  created_at: z.string(),
});

const institutionParams = z.strictObject({ id: z.string().min(1).max(40) });
const createBody = z.strictObject({ name: institutionNameSchema, approve: z.boolean().default(false) });

/**
 * The appliance operator's institution management (the CLI's `institutions` commands). Suspending
 * takes effect on every key of the institution at its next request; approving restores them.
 */
export const operatorRoutes: PortalRoute[] = [
  definePortalRoute({
    method: 'get',
    path: '/operator/institutions',
    summary: 'Every institution on the appliance',
    access: 'operator',
    response: z.array(institutionSchema),
    handler: async ({ ctx }) => (await listInstitutions(ctx.db)).map(presentInstitutionSummary),
  }),
  definePortalRoute({
    method: 'post',
    path: '/operator/institutions',
    summary: 'Create an institution, pending unless `approve` is true',
    access: 'operator',
    body: createBody,
    response: institutionSchema,
    handler: async ({ ctx, body }) => presentInstitutionSummary(await createInstitution(ctx.db, body)),
  }),
  definePortalRoute({
    method: 'post',
    path: '/operator/institutions/{id}/approve',
    summary: 'Approve an institution (or lift its suspension)',
    access: 'operator',
    params: institutionParams,
    response: institutionSchema,
    handler: async ({ ctx, params }) => presentInstitutionSummary(await setInstitutionStatus(ctx.db, params.id, 'approved')),
  }),
  definePortalRoute({
    method: 'post',
    path: '/operator/institutions/{id}/suspend',
    summary: 'Suspend an approved institution: its keys stop working at once',
    access: 'operator',
    params: institutionParams,
    response: institutionSchema,
    handler: async ({ ctx, params }) => presentInstitutionSummary(await setInstitutionStatus(ctx.db, params.id, 'suspended')),
  }),
];
