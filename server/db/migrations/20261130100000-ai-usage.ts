import { DataTypes } from 'sequelize';
import type { Migration } from '../migrate.js';

/**
 * AI usage is recorded per attempt by `POST /app/ai/usage` (checked against the exam's
 * `ai_policy` and paid from the wallet in one transaction), and a submission's `ai_usage` is that
 * record, never the app's own claim (docs/decisions/ai-usage.md). Attempts made before start at
 * zero: nothing was ever checked for them. Each spend row's `ref` is its attempt, so one attempt
 * has several spend rows with the same ref: the unique (institution, kind, ref) index, which makes
 * credits idempotent, becomes one per kind that needs it (credit, coupon).
 */
export const aiUsage: Migration = {
  name: '20261130100000-ai-usage',
  async up({ queryInterface: qi, transaction }) {
    await qi.addColumn('attempts', 'ai_interactions', { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 }, { transaction });
    await qi.addColumn('attempts', 'ai_cost_cents', { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 }, { transaction });
    await qi.removeIndex('merit_ledger', ['institution_id', 'kind', 'ref'], { transaction });
    // One index per kind, each with `kind = '…'` as its condition: SQLite uses a partial index only
    // for a query that repeats its condition, and the credit lookup says `kind = 'credit'`.
    for (const kind of ['credit', 'coupon']) {
      await qi.addIndex('merit_ledger', ['institution_id', 'ref'], { name: `merit_ledger_${kind}_ref`, unique: true, where: { kind }, transaction });
    }
  },
};
