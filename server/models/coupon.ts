import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

export type CouponBatchStatus = 'pending' | 'approved' | 'rejected';

/** A batch an institution requests; the operator approves it (codes are made then) or rejects it. */
export interface CouponBatchRow extends Model<InferAttributes<CouponBatchRow>, InferCreationAttributes<CouponBatchRow>> {
  id: string;
  institution_id: string;
  name: string;
  description: string;
  total_coupons: number;
  value_cents: number;
  expiry_date: Date;
  status: CouponBatchStatus;
  /** Kept in the redemption's transaction, so it always equals the number of redemption rows. */
  redeemed_count: CreationOptional<number>;
  /** When the operator approved or rejected it. */
  decided_at: Date | null;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

/** One coupon of an approved batch. Stored plainly: the institution reads every code back anyway. */
export interface CouponCodeRow extends Model<InferAttributes<CouponCodeRow>, InferCreationAttributes<CouponCodeRow>> {
  id: string;
  institution_id: string;
  batch_id: string;
  /** `XXXX-XXXX-XXXX-XXXX`, unique on the appliance. */
  code: string;
  /** Set once, by the redemption; never cleared. */
  redeemed_at: Date | null;
  created_at: Date;
}

/** The one redemption of a code (unique on `code_id`) and the ledger row it credited. */
export interface CouponRedemptionRow extends Model<InferAttributes<CouponRedemptionRow>, InferCreationAttributes<CouponRedemptionRow>> {
  id: string;
  institution_id: string;
  code_id: string;
  batch_id: string;
  student_id: string;
  value_cents: number;
  ledger_entry_id: string;
  redeemed_at: Date;
}

export function defineCouponBatch(sequelize: Sequelize) {
  return sequelize.define<CouponBatchRow>(
    'CouponBatch',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      name: { type: DataTypes.STRING(200), allowNull: false },
      description: { type: DataTypes.STRING(2000), allowNull: false, defaultValue: '' },
      total_coupons: { type: DataTypes.INTEGER, allowNull: false },
      value_cents: { type: DataTypes.BIGINT, allowNull: false },
      expiry_date: { type: DataTypes.DATE, allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      redeemed_count: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      decided_at: { type: DataTypes.DATE, allowNull: true },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'coupon_batches' },
  );
}

export function defineCouponCode(sequelize: Sequelize) {
  return sequelize.define<CouponCodeRow>(
    'CouponCode',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      batch_id: { type: DataTypes.STRING(40), allowNull: false },
      code: { type: DataTypes.STRING(32), allowNull: false, unique: true },
      redeemed_at: { type: DataTypes.DATE, allowNull: true },
      created_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'coupon_codes', timestamps: false },
  );
}

export function defineCouponRedemption(sequelize: Sequelize) {
  return sequelize.define<CouponRedemptionRow>(
    'CouponRedemption',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      code_id: { type: DataTypes.STRING(40), allowNull: false, unique: true },
      batch_id: { type: DataTypes.STRING(40), allowNull: false },
      student_id: { type: DataTypes.STRING(40), allowNull: false },
      value_cents: { type: DataTypes.BIGINT, allowNull: false },
      ledger_entry_id: { type: DataTypes.STRING(40), allowNull: false },
      redeemed_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'coupon_redemptions', timestamps: false },
  );
}
