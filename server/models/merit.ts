import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

export type LedgerKind = 'credit' | 'spend' | 'coupon';

/** What the operator granted an institution to credit (`total_cents`) and what its credits drew (`used_cents`). */
export interface MeritAllowanceRow extends Model<InferAttributes<MeritAllowanceRow>, InferCreationAttributes<MeritAllowanceRow>> {
  institution_id: string;
  total_cents: number;
  /** Raised only by operator credits, in the credit's transaction; never above `total_cents`. */
  used_cents: number;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

/** A student's balance, moved only together with a ledger row, in the same transaction; never negative. */
export interface MeritWalletRow extends Model<InferAttributes<MeritWalletRow>, InferCreationAttributes<MeritWalletRow>> {
  student_id: string;
  institution_id: string;
  balance_cents: number;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

/**
 * One movement of a wallet. A `credit` row is the operator credit itself (its id is the
 * `credit_id`, its `ref` the idempotency key, unique per institution); a `coupon` row carries the
 * redeemed code as `ref`; a `spend` row (AI usage) has a negative amount and its attempt's id as `ref`.
 */
export interface MeritLedgerRow extends Model<InferAttributes<MeritLedgerRow>, InferCreationAttributes<MeritLedgerRow>> {
  id: string;
  institution_id: string;
  student_id: string;
  kind: LedgerKind;
  amount_cents: number;
  /** The wallet balance right after this row: the audit trail, and the replayed answer of a credit. */
  balance_after_cents: number;
  reason: string;
  ref: string | null;
  /** Strictly increasing per institution (set by the command, not the clock hook). */
  created_at: Date;
}

export function defineMeritAllowance(sequelize: Sequelize) {
  return sequelize.define<MeritAllowanceRow>(
    'MeritAllowance',
    {
      institution_id: { type: DataTypes.STRING(40), primaryKey: true },
      total_cents: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
      used_cents: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'merit_allowances' },
  );
}

export function defineMeritWallet(sequelize: Sequelize) {
  return sequelize.define<MeritWalletRow>(
    'MeritWallet',
    {
      student_id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      balance_cents: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'merit_wallets' },
  );
}

export function defineMeritLedgerEntry(sequelize: Sequelize) {
  return sequelize.define<MeritLedgerRow>(
    'MeritLedgerEntry',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      student_id: { type: DataTypes.STRING(40), allowNull: false },
      kind: { type: DataTypes.STRING(16), allowNull: false },
      amount_cents: { type: DataTypes.BIGINT, allowNull: false },
      balance_after_cents: { type: DataTypes.BIGINT, allowNull: false },
      reason: { type: DataTypes.STRING(500), allowNull: false },
      ref: { type: DataTypes.STRING(100), allowNull: true },
      created_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'merit_ledger', timestamps: false },
  );
}
