import { DataTypes } from 'sequelize';
import type { Migration } from '../migrate.js';

const timestamps = {
  created_at: { type: DataTypes.DATE, allowNull: false },
  updated_at: { type: DataTypes.DATE, allowNull: false },
};

const ref = (table: string, onDelete: 'CASCADE' | 'RESTRICT' = 'CASCADE', allowNull = false) => ({
  type: DataTypes.STRING(40),
  allowNull,
  references: { model: table, key: 'id' },
  onDelete,
});

/** Money is counted in whole cents; BIGINT so totals never wrap where INTEGER is 32-bit. */
const cents = (defaultValue?: number) => ({
  type: DataTypes.BIGINT,
  allowNull: false,
  ...(defaultValue === undefined ? {} : { defaultValue }),
});

/**
 * Coupon batches and their codes, redemptions, and the merit side: one allowance per institution,
 * one wallet per student and the ledger that explains every wallet movement. Money rows are never
 * deleted through the API (`RESTRICT` on the people they credit).
 */
export const couponsMerits: Migration = {
  name: '20260918000000-coupons-merits',
  async up({ queryInterface: qi, transaction }) {
    await qi.createTable(
      'coupon_batches',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        name: { type: DataTypes.STRING(200), allowNull: false },
        description: { type: DataTypes.STRING(2000), allowNull: false, defaultValue: '' },
        total_coupons: { type: DataTypes.INTEGER, allowNull: false },
        value_cents: cents(),
        expiry_date: { type: DataTypes.DATE, allowNull: false },
        status: { type: DataTypes.STRING(16), allowNull: false },
        redeemed_count: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        decided_at: { type: DataTypes.DATE, allowNull: true },
        ...timestamps,
      },
      { transaction },
    );
    await qi.addIndex('coupon_batches', ['institution_id', 'created_at'], { transaction });

    await qi.createTable(
      'coupon_codes',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        batch_id: ref('coupon_batches'),
        code: { type: DataTypes.STRING(32), allowNull: false },
        redeemed_at: { type: DataTypes.DATE, allowNull: true },
        created_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    // Unique across every institution: a code names exactly one coupon on this appliance.
    await qi.addIndex('coupon_codes', ['code'], { unique: true, transaction });
    await qi.addIndex('coupon_codes', ['batch_id', 'code'], { transaction });

    await qi.createTable(
      'merit_allowances',
      {
        institution_id: { ...ref('institutions'), primaryKey: true },
        total_cents: cents(0),
        used_cents: cents(0),
        ...timestamps,
      },
      { transaction },
    );

    await qi.createTable(
      'merit_wallets',
      {
        student_id: { ...ref('people', 'RESTRICT'), primaryKey: true },
        institution_id: ref('institutions'),
        balance_cents: cents(0),
        ...timestamps,
      },
      { transaction },
    );
    await qi.addIndex('merit_wallets', ['institution_id'], { transaction });

    await qi.createTable(
      'merit_ledger',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        student_id: ref('people', 'RESTRICT'),
        kind: { type: DataTypes.STRING(16), allowNull: false },
        amount_cents: cents(),
        balance_after_cents: cents(),
        reason: { type: DataTypes.STRING(500), allowNull: false },
        ref: { type: DataTypes.STRING(100), allowNull: true },
        created_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    // Idempotency of credits lives in the database: one `credit` row per institution and ref.
    await qi.addIndex('merit_ledger', ['institution_id', 'kind', 'ref'], { unique: true, transaction });
    await qi.addIndex('merit_ledger', ['institution_id', 'created_at'], { transaction });
    await qi.addIndex('merit_ledger', ['institution_id', 'student_id', 'created_at'], { transaction });

    await qi.createTable(
      'coupon_redemptions',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        code_id: ref('coupon_codes', 'RESTRICT'),
        batch_id: ref('coupon_batches', 'RESTRICT'),
        student_id: ref('people', 'RESTRICT'),
        value_cents: cents(),
        ledger_entry_id: ref('merit_ledger', 'RESTRICT'),
        redeemed_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    // A coupon credits once: a second redemption row of the same code cannot exist.
    await qi.addIndex('coupon_redemptions', ['code_id'], { unique: true, transaction });
    await qi.addIndex('coupon_redemptions', ['institution_id', 'redeemed_at'], { transaction });
    await qi.addIndex('coupon_redemptions', ['institution_id', 'student_id', 'redeemed_at'], { transaction });
  },
};
