import { DataTypes } from 'sequelize';
import type { Migration } from '../migrate.js';

/** Every periodic job's runs (start, end, outcome), so missed runs are caught up. */
export const jobRuns: Migration = {
  name: '20261126010000-job-runs',
  async up({ queryInterface: qi, transaction }) {
    await qi.createTable(
      'job_runs',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        job: { type: DataTypes.STRING(100), allowNull: false },
        started_at: { type: DataTypes.DATE, allowNull: false },
        // Null while the run is in progress (or when the process died during it).
        finished_at: { type: DataTypes.DATE, allowNull: true },
        outcome: { type: DataTypes.STRING(20), allowNull: true },
        detail: { type: DataTypes.STRING(300), allowNull: true },
      },
      { transaction },
    );
    await qi.addIndex('job_runs', ['job', 'started_at'], { transaction });
  },
};
