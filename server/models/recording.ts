import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

export type RecordingSource = 'camera' | 'screen';

/** A proctoring recording of an attempt, received in chunks (docs/decisions/proctoring-recordings.md). */
export interface AttemptRecordingRow extends Model<InferAttributes<AttemptRecordingRow>, InferCreationAttributes<AttemptRecordingRow>> {
  /** `rec_…` */
  id: string;
  institution_id: string;
  attempt_id: string;
  source: RecordingSource;
  /** As the browser's MediaRecorder names it, `video/webm;codecs=vp9`: the stored file's content type. */
  mime_type: string;
  /** The stored file's name, `camera-1.webm`. */
  name: string;
  /** Chunks received; the next chunk's `seq` (seq counts from 0). */
  chunks: CreationOptional<number>;
  /** Bytes received: the length of the file that is real (anything past it is a cut-off append). */
  bytes: CreationOptional<number>;
  /** The file the chunks are appended to, relative to DATA_DIR; the stored file points at it once finished. */
  storage_path: string;
  /** The stored file of kind `recording`, once finished. */
  file_id: string | null;
  started_at: Date;
  finished_at: Date | null;
}

/** One received chunk: where it starts in the file, and what it was, so a retry of it can be recognized. */
export interface RecordingChunkRow extends Model<InferAttributes<RecordingChunkRow>, InferCreationAttributes<RecordingChunkRow>> {
  id: string;
  institution_id: string;
  recording_id: string;
  seq: number;
  start_byte: number;
  size: number;
  sha256: string;
  created_at: Date;
}

export function defineAttemptRecording(sequelize: Sequelize) {
  return sequelize.define<AttemptRecordingRow>(
    'AttemptRecording',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      attempt_id: { type: DataTypes.STRING(40), allowNull: false },
      source: { type: DataTypes.STRING(16), allowNull: false },
      mime_type: { type: DataTypes.STRING(100), allowNull: false },
      name: { type: DataTypes.STRING(255), allowNull: false },
      chunks: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      bytes: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
      storage_path: { type: DataTypes.STRING(500), allowNull: false },
      file_id: { type: DataTypes.STRING(40), allowNull: true },
      started_at: { type: DataTypes.DATE, allowNull: false },
      finished_at: { type: DataTypes.DATE, allowNull: true },
    },
    { tableName: 'attempt_recordings', timestamps: false },
  );
}

export function defineRecordingChunk(sequelize: Sequelize) {
  return sequelize.define<RecordingChunkRow>(
    'RecordingChunk',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      recording_id: { type: DataTypes.STRING(40), allowNull: false },
      seq: { type: DataTypes.INTEGER, allowNull: false },
      start_byte: { type: DataTypes.BIGINT, allowNull: false },
      size: { type: DataTypes.INTEGER, allowNull: false },
      sha256: { type: DataTypes.STRING(64), allowNull: false },
      created_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'recording_chunks', timestamps: false },
  );
}
