import { institutionNameSchema } from '../../commands/institutions/institutions.js';
import { MAX_ALLOWANCE_CENTS } from '../../commands/wallet/merits.js';
import { MAIL_STATUSES } from '../../models/mail.js';
import { pageQuery } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';
import { curriculumSchema } from '../alpha/schema-curricula.js';
import { batchSchema, batchStatus } from '../coupons/schema.js';
import { allowanceSchema } from '../merits/schema.js';

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

export const institutionParams = z.strictObject({ id: z.string().min(1).max(40) });
export const batchParams = z.strictObject({ batchId: z.string().min(1).max(40) });
export const curriculumParams = z.strictObject({ curriculumId: z.string().min(1).max(40) });

export const createBody = z.strictObject({ name: institutionNameSchema, approve: z.boolean().default(false) });
export const allowanceBody = z.strictObject({ total_cents: z.number().int().min(0).max(MAX_ALLOWANCE_CENTS) });
export const testMailBody = z.strictObject({ to: z.email().max(320) });

export const batchesQuery = z.strictObject({ status: batchStatus.optional(), ...pageQuery });
export const curriculaQuery = z.strictObject({ status: z.enum(['draft', 'published']).optional() });
