import { MAX_USAGE_CENTS, MAX_USAGE_INTERACTIONS } from '../../commands/wallet/ai-usage.js';
import { MAX_CREDIT_CENTS, WALLET_LEDGER_ROWS } from '../../commands/wallet/merits.js';
import { isoDateTime, pageOf, pageQuery, timestamp } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';

const EMAIL_EXAMPLE = 'ada.lovelace@riverside-high.campusbridge.local';
const CREDIT_EXAMPLE = 'mle_3Jk7mW1xPq8Lz2Rb6Tn9Vc5Y';

export const allowanceSchema = z
  .object({
    total_cents: z.number().int().openapi({ description: 'Granted by the appliance operator (`merits allowance`).', example: 500000 }),
    used_cents: z.number().int().openapi({ description: 'Drawn by credits (`POST /merits/credits`); coupon redemptions do not draw on it.', example: 120000 }),
    remaining_cents: z.number().int().openapi({ description: '`total_cents - used_cents`: the most the next credit may be.', example: 380000 }),
  })
  .openapi('MeritAllowance');

export const ledgerEntrySchema = z
  .object({
    id: z.string().openapi({ description: 'For a `credit`, the `credit_id`.', example: CREDIT_EXAMPLE }),
    email: z.string().openapi({ description: "The student's login email.", example: EMAIL_EXAMPLE }),
    kind: z.enum(['credit', 'spend', 'coupon']).openapi({
      description: '`credit`: an institution credit (draws the allowance); `coupon`: a redeemed coupon; `spend`: AI usage paid from the wallet.',
    }),
    amount_cents: z.number().int().openapi({ description: 'Negative for a `spend`.', example: 2500 }),
    reason: z
      .string()
      .openapi({ description: "The credit's reason; `Coupon: <batch name>`; or `AI usage: <n> interactions`.", example: 'Science fair winner' }),
    ref: z.string().nullable().openapi({
      description: "The credit's `ref`; the redeemed code for a `coupon`; for a `spend`, the attempt (`att_…`) whose AI usage it paid.",
      example: 'sis-award-2026-0042',
    }),
    created_at: timestamp.openapi({ description: 'Strictly increasing within an institution: the ledger has one order.' }),
  })
  .openapi('MeritLedgerEntry');

export const walletSchema = z
  .object({
    email: z.string().openapi({ example: EMAIL_EXAMPLE }),
    balance_cents: z.number().int().openapi({ description: 'Never negative; equals the sum of every ledger row of the student.', example: 1250 }),
    ledger: z.array(ledgerEntrySchema).openapi({ description: `The newest ${WALLET_LEDGER_ROWS} rows, newest first; GET /merits/ledger has them all.` }),
  })
  .openapi('MeritWallet');

export const walletParams = z.strictObject({
  email: z.string().min(1).max(320).openapi({ description: "The student's login email (the student id works too).", example: EMAIL_EXAMPLE }),
});

export const creditBody = z
  .strictObject({
    email: z.string().trim().min(1).max(320).openapi({ description: "The student's login email.", example: EMAIL_EXAMPLE }),
    amount_cents: z
      .number()
      .int()
      .min(1)
      .max(MAX_CREDIT_CENTS)
      .openapi({ description: `1 to ${MAX_CREDIT_CENTS} cents.`, example: 2500 }),
    reason: z.string().trim().min(1).max(500).openapi({ example: 'Science fair winner' }),
    ref: z
      .string()
      .min(1)
      .max(100)
      .openapi({ description: 'Your idempotency key, unique per institution (compared exactly, case-sensitive).', example: 'sis-award-2026-0042' }),
  })
  .openapi('MeritCreditCreate');

export const creditResponse = z
  .object({
    credit_id: z.string().openapi({ example: CREDIT_EXAMPLE }),
    email: z.string().openapi({ example: EMAIL_EXAMPLE }),
    amount_cents: z.number().int().openapi({ example: 2500 }),
    balance_cents: z
      .number()
      .int()
      .openapi({ description: 'The wallet balance right after this credit (on a replay too: the first answer, unchanged).', example: 3750 }),
    ref: z.string().openapi({ example: 'sis-award-2026-0042' }),
    replayed: z.boolean().openapi({ description: 'True when this `ref` had already credited: nothing was credited by this call.', example: false }),
  })
  .openapi('MeritCredit');

export const listLedgerQuery = z.strictObject({
  email: z
    .string()
    .min(1)
    .max(320)
    .optional()
    .openapi({ description: "Only this student's rows: login email (or student id). An unknown student gives an empty list.", example: EMAIL_EXAMPLE }),
  since: isoDateTime
    .transform((value) => new Date(value))
    .optional()
    .openapi({ description: 'Only rows with `created_at` at or after this instant (inclusive).', example: '2026-09-14T00:00:00.000Z' }),
  ...pageQuery,
});

export const ledgerPage = pageOf(ledgerEntrySchema);

/** Learner side: POST /app/ai/usage. */
export const aiUsageBody = z
  .strictObject({
    attempt_id: z.string().min(1).max(40).openapi({
      description: 'One of your open attempts (not submitted, time not run out); the usage is recorded on it.',
      example: 'att_5Qm8nR2xWk7Lz4Tb9Vp1Hc3Y',
    }),
    interactions: z.number().int().min(0).max(MAX_USAGE_INTERACTIONS).openapi({ description: 'Interactions in this report, added to the total.', example: 3 }),
    cost_cents: z
      .number()
      .int()
      .min(0)
      .max(MAX_USAGE_CENTS)
      .openapi({ description: 'What this usage cost, paid from the wallet; 0 spends nothing.', example: 12 }),
  })
  .openapi('AiUsage');

export const aiUsageResponse = z
  .object({
    interactions_total: z.number().int().openapi({ description: "The attempt's recorded interactions, this report included.", example: 7 }),
    cost_cents_total: z.number().int().openapi({ description: "The attempt's recorded cost, this report included.", example: 28 }),
    balance_cents: z.number().int().openapi({ description: 'The wallet balance after the spend.', example: 1238 }),
  })
  .openapi('AiUsageRecorded');
