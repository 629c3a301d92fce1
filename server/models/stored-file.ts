import { DataTypes, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

/** `exam`: files of a coding exam; `attempt`: files a student uploads for a submission. */
export type FileOwnerType = 'exam' | 'attempt';
/** `starter`, `sample_tests`, `hidden_tests` for exams; `submission` or `recording` for attempts. */
export type FileKind = 'starter' | 'sample_tests' | 'hidden_tests' | 'submission' | 'recording';

export interface StoredFileRow extends Model<InferAttributes<StoredFileRow>, InferCreationAttributes<StoredFileRow>> {
  /** The `ref` returned by an upload. */
  id: string;
  institution_id: string;
  owner_type: FileOwnerType;
  owner_id: string;
  kind: FileKind;
  name: string;
  content_type: string;
  size: number;
  sha256: string;
  /** Relative to DATA_DIR. */
  storage_path: string;
  created_at: Date;
}

export function defineStoredFile(sequelize: Sequelize) {
  return sequelize.define<StoredFileRow>(
    'StoredFile',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      owner_type: { type: DataTypes.STRING(16), allowNull: false },
      owner_id: { type: DataTypes.STRING(40), allowNull: false },
      kind: { type: DataTypes.STRING(16), allowNull: false },
      name: { type: DataTypes.STRING(255), allowNull: false },
      content_type: { type: DataTypes.STRING(100), allowNull: false },
      size: { type: DataTypes.BIGINT, allowNull: false },
      sha256: { type: DataTypes.STRING(64), allowNull: false },
      storage_path: { type: DataTypes.STRING(500), allowNull: false },
      created_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'stored_files', timestamps: false },
  );
}
