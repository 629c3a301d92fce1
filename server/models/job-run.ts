import { DataTypes, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

export const JOB_RUN_OUTCOMES = ['ok', 'failed'] as const;
export type JobRunOutcome = (typeof JOB_RUN_OUTCOMES)[number];

/** How many runs of each job are kept (the newest); older ones are pruned as new ones finish. */
export const JOB_RUNS_KEPT = 50;

/** One run of a periodic job (server/jobs/): when it started and ended, and how it went. */
export interface JobRunRow extends Model<InferAttributes<JobRunRow>, InferCreationAttributes<JobRunRow>> {
  id: string;
  job: string;
  started_at: Date;
  /** Null while running, or when the process stopped during the run. */
  finished_at: Date | null;
  outcome: JobRunOutcome | null;
  /** A short summary: the job's counts, or the error's message. Never personal data. */
  detail: string | null;
}

export function defineJobRun(sequelize: Sequelize) {
  return sequelize.define<JobRunRow>(
    'JobRun',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      job: { type: DataTypes.STRING(100), allowNull: false },
      started_at: { type: DataTypes.DATE, allowNull: false },
      finished_at: { type: DataTypes.DATE, allowNull: true },
      outcome: { type: DataTypes.STRING(20), allowNull: true },
      detail: { type: DataTypes.STRING(300), allowNull: true },
    },
    { tableName: 'job_runs', timestamps: false },
  );
}
