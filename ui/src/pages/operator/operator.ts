import type { z } from 'zod';
import type {
  institutionRef,
  institutionSchema,
  operatorAllowanceSchema,
  operatorBatchSchema,
  operatorCurriculumSchema,
  smtpSchema,
  testMailSchema,
} from '../../../../server/routes/operator/schema';
import type { applianceSettingsSchema, applianceStatusSchema } from '../../../../server/routes/operator/settings';

/** Types and query keys of the appliance operator's pages (type-only imports of server/routes/operator/schema.ts). */

export type OperatorInstitution = z.input<typeof institutionSchema>;
export type InstitutionStatus = OperatorInstitution['status'];

/** Which institution a row belongs to. */
export type InstitutionRef = z.input<typeof institutionRef>;

export type OperatorBatch = z.input<typeof operatorBatchSchema>;
export type BatchStatus = OperatorBatch['status'];
/** The status filter's choices; a runtime list, so written here and typed by the server's statuses. */
export const BATCH_STATUSES: readonly BatchStatus[] = ['pending', 'approved', 'rejected'];

export type OperatorAllowance = z.input<typeof operatorAllowanceSchema>;

/** `institution` is null for a curriculum shared by every institution. */
export type OperatorCurriculum = z.input<typeof operatorCurriculumSchema>;

/** GET /operator/smtp answers null when no mail server is saved; this is the saved one. */
export type SmtpSettings = NonNullable<z.input<typeof smtpSchema>>;

export type TestMailResult = z.input<typeof testMailSchema>;

export type ApplianceSettings = z.input<typeof applianceSettingsSchema>;
export type ResolvedSetting = ApplianceSettings['settings']['public_url'];
/** GET /appliance: the base of links, and why they might not work for other computers. */
export type ApplianceStatus = z.input<typeof applianceStatusSchema>;

export const operatorKey = (area: 'institutions' | 'coupon-batches' | 'allowances' | 'curricula' | 'smtp' | 'settings') => ['operator', area] as const;

/** Amounts are whole cents of no stated currency (the API's unit), shown grouped: 1,250,000. */
export const formatCents = (cents: number) => cents.toLocaleString();
