import { DataTypes } from 'sequelize';
import type { Migration } from '../migrate.js';

const ref = (table: string, onDelete: 'CASCADE' | 'SET NULL' = 'CASCADE', allowNull = false) => ({
  type: DataTypes.STRING(40),
  allowNull,
  references: { model: table, key: 'id' },
  onDelete,
});

/**
 * Proctoring recordings captured by the learner page, received in numbered
 * chunks appended to one file per recording (docs/decisions/proctoring-recordings.md). A chunk
 * row is written only once its bytes are on disk, so `start_byte + size` of the last row is how
 * much of the file is real; anything past it is a cut-off append, cut away by the next one.
 */
export const attemptRecordings: Migration = {
  name: '20261201100000-attempt-recordings',
  async up({ queryInterface: qi, transaction }) {
    await qi.createTable(
      'attempt_recordings',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        attempt_id: ref('attempts'),
        source: { type: DataTypes.STRING(16), allowNull: false },
        mime_type: { type: DataTypes.STRING(100), allowNull: false },
        name: { type: DataTypes.STRING(255), allowNull: false },
        chunks: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        bytes: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
        storage_path: { type: DataTypes.STRING(500), allowNull: false },
        // Set when finished: the stored file of kind `recording` the submission lists.
        file_id: ref('stored_files', 'SET NULL', true),
        started_at: { type: DataTypes.DATE, allowNull: false },
        finished_at: { type: DataTypes.DATE, allowNull: true },
      },
      { transaction },
    );
    await qi.addIndex('attempt_recordings', ['institution_id', 'attempt_id', 'started_at'], { transaction });
    await qi.addIndex('attempt_recordings', ['institution_id', 'finished_at'], { transaction });

    await qi.createTable(
      'recording_chunks',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        recording_id: ref('attempt_recordings'),
        seq: { type: DataTypes.INTEGER, allowNull: false },
        start_byte: { type: DataTypes.BIGINT, allowNull: false },
        size: { type: DataTypes.INTEGER, allowNull: false },
        sha256: { type: DataTypes.STRING(64), allowNull: false },
        created_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    await qi.addIndex('recording_chunks', ['recording_id', 'seq'], { unique: true, transaction });
  },
};
