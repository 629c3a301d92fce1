import { DataTypes, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

export type IdempotencyStatus = 'in_progress' | 'done';

/** One `Idempotency-Key` of one caller: the request it was first sent with and, once finished, its answer. */
export interface IdempotencyKeyRow extends Model<InferAttributes<IdempotencyKeyRow>, InferCreationAttributes<IdempotencyKeyRow>> {
  id: string;
  /** The caller's institution (a sandbox key's: its sandbox), so the rows go with its data. */
  institution_id: string;
  /** Whose key it is: `key:<api key id>` or `learner:<person id>`. Two callers' keys never meet. */
  subject: string;
  key: string;
  /** SHA-256 (hex) of the method, path, query and body: "the same request". */
  fingerprint: string;
  /** `POST /v1/students`, for the conflict's message. */
  request: string;
  status: IdempotencyStatus;
  response_status: number | null;
  /** The JSON answer, sealed with the master key: answers can hold secrets (a new endpoint's). */
  response_sealed: string | null;
  created_at: Date;
  expires_at: Date;
}

export function defineIdempotencyKey(sequelize: Sequelize) {
  return sequelize.define<IdempotencyKeyRow>(
    'IdempotencyKey',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      subject: { type: DataTypes.STRING(60), allowNull: false },
      key: { type: DataTypes.STRING(255), allowNull: false },
      fingerprint: { type: DataTypes.STRING(64), allowNull: false },
      request: { type: DataTypes.STRING(300), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      response_status: { type: DataTypes.INTEGER, allowNull: true },
      response_sealed: { type: DataTypes.TEXT, allowNull: true },
      created_at: { type: DataTypes.DATE, allowNull: false },
      expires_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'idempotency_keys', timestamps: false },
  );
}
