import { AppError } from '../../errors.js';
import type { LearnerAuth } from '../learner/auth.js';
import type { AttemptRow } from '../../models/attempt.js';
import type { ExamRow } from '../../models/exam.js';
import { postToWallet, walletOwner } from './merits.js';

/** One AI usage report: at most $10,000 and a million interactions. */
export const MAX_USAGE_CENTS = 1_000_000;
export const MAX_USAGE_INTERACTIONS = 1_000_000;

// BIGINT columns may come back as strings from some drivers; money is always a JS integer here.
const cents = (value: number | string | bigint) => Number(value);

export interface AiUsageInput {
  attempt_id: string;
  interactions: number;
  cost_cents: number;
}

export interface AiUsageTotals {
  interactions_total: number;
  cost_cents_total: number;
  balance_cents: number;
}

/** What the exam allows. `allowed` absent is not allowed; `max_interactions` absent is no cap but the wallet. */
function policyOf(exam: ExamRow): { allowed: boolean; maxInteractions: number | null } {
  const policy = exam.ai_policy ?? {};
  const max = policy.max_interactions;
  return { allowed: policy.allowed === true, maxInteractions: typeof max === 'number' && Number.isFinite(max) ? max : null };
}

/**
 * The attempt is the student's and open: not submitted, time not run out, exam still published.
 * Anything else, an unknown id or another student's attempt included, is the same `409 conflict`
 * (docs/decisions/ai-usage.md), so the answer says nothing about attempts that are not the caller's.
 */
function assertOpen(attempt: AttemptRow | null, exam: ExamRow | null, now: Date): asserts attempt is AttemptRow {
  if (!attempt) throw new AppError('conflict', 'AI usage is recorded on one of your open attempts; this is not one.');
  if (attempt.submitted_at) throw new AppError('conflict', 'This attempt has been submitted; it records no more AI usage.');
  if (attempt.expires_at && attempt.expires_at.getTime() <= now.getTime()) throw new AppError('conflict', 'The time for this attempt has run out.');
  if (exam?.status !== 'published') throw new AppError('conflict', 'This exam no longer accepts work.');
}

/**
 * POST /app/ai/usage: adds a report to the attempt's recorded AI usage and pays its cost from the
 * student's wallet, in one transaction, so nothing is recorded or spent when any check refuses:
 * the attempt open (`409 conflict`), the exam's `ai_policy.allowed` (`403 forbidden`), the new
 * total within `max_interactions` (`409 conflict`), the balance (`409 insufficient_allowance`).
 * The spend's ledger row has the attempt id as `ref`, so a school can reconcile spends with
 * attempts. Not idempotent: each call is new usage.
 */
export function recordAiUsage(learner: LearnerAuth, input: AiUsageInput, now = new Date()): Promise<AiUsageTotals> {
  const student = walletOwner(learner);
  return learner.tenant.inTransaction(async (tx) => {
    const attempt = await tx.attempts.findOne({ where: { id: input.attempt_id, student_id: student.id } });
    const exam = attempt ? await tx.exams.findById(attempt.exam_id) : null;
    assertOpen(attempt, exam, now);

    const policy = policyOf(exam as ExamRow);
    if (!policy.allowed) throw new AppError('forbidden', "This exam's AI policy does not allow the AI assistant.");
    const before = { interactions: attempt.ai_interactions, cost: cents(attempt.ai_cost_cents) };
    const after = { interactions: before.interactions + input.interactions, cost: before.cost + input.cost_cents };
    if (policy.maxInteractions !== null && after.interactions > policy.maxInteractions) {
      throw new AppError(
        'conflict',
        `This exam allows ${policy.maxInteractions} AI interactions; ${before.interactions} are recorded, so ${input.interactions} more would exceed it.`,
        { interactions_total: before.interactions, max_interactions: policy.maxInteractions },
      );
    }

    // Compare-and-set on the totals read, and only while unsubmitted: SQLite's writers are
    // serialised already, and on a database with concurrent writers (PostgreSQL) the second of two
    // racing reports waits for the row, finds it changed and is refused instead of exceeding the cap.
    const claimed = await tx.attempts.update(
      { ai_interactions: after.interactions, ai_cost_cents: after.cost },
      { id: attempt.id, submitted_at: null, ai_interactions: before.interactions, ai_cost_cents: before.cost },
    );
    if (claimed !== 1) throw new AppError('conflict', "The attempt's AI usage changed while this report was recorded; send it again.");

    let balance: number;
    if (input.cost_cents > 0) {
      const entry = await postToWallet(tx, student, {
        kind: 'spend',
        amount_cents: -input.cost_cents,
        reason: `AI usage: ${input.interactions} interaction${input.interactions === 1 ? '' : 's'}`,
        ref: attempt.id,
      });
      balance = cents(entry.balance_after_cents);
    } else {
      // Nothing to pay: no ledger row, as the wallet moves only with one.
      const wallet = await tx.meritWallets.findOne({ where: { student_id: student.id } });
      balance = wallet ? cents(wallet.balance_cents) : 0;
    }
    return { interactions_total: after.interactions, cost_cents_total: after.cost, balance_cents: balance };
  });
}
