import { DataTypes, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';
import { id, ref } from './lti.js';

export const LTI_NRPS_RUN_OUTCOMES = ['running', 'applied', 'dry_run', 'held_back', 'failed'] as const;
export type LtiNrpsRunOutcome = (typeof LTI_NRPS_RUN_OUTCOMES)[number];
/** `launch`: started by an instructor's launch; `cli` and `portal`: on demand. */
export const LTI_NRPS_RUN_TRIGGERS = ['launch', 'cli', 'portal'] as const;
export type LtiNrpsRunTrigger = (typeof LTI_NRPS_RUN_TRIGGERS)[number];

/** One class list sync of a resource link (NRPS 2.0): what it did, or why it was held back or failed. */
export interface LtiNrpsRunRow extends Model<InferAttributes<LtiNrpsRunRow>, InferCreationAttributes<LtiNrpsRunRow>> {
  id: string;
  institution_id: string;
  resource_link_id: string;
  trigger: LtiNrpsRunTrigger;
  dry_run: boolean;
  outcome: LtiNrpsRunOutcome;
  /** The plan's counts (the shape `lti members sync` prints); null until the plan is made. */
  counts: Record<string, unknown> | null;
  reason: string | null;
  group_id: string | null;
  started_at: Date;
  heartbeat_at: Date | null;
  finished_at: Date | null;
}

export function defineLtiNrpsRun(sequelize: Sequelize) {
  return sequelize.define<LtiNrpsRunRow>(
    'LtiNrpsRun',
    {
      id: id(),
      institution_id: ref(),
      resource_link_id: ref(),
      trigger: { type: DataTypes.STRING(16), allowNull: false },
      dry_run: { type: DataTypes.BOOLEAN, allowNull: false },
      outcome: { type: DataTypes.STRING(16), allowNull: false },
      counts: { type: DataTypes.JSON, allowNull: true },
      reason: { type: DataTypes.STRING(1000), allowNull: true },
      group_id: { type: DataTypes.STRING(40), allowNull: true },
      started_at: { type: DataTypes.DATE, allowNull: false },
      heartbeat_at: { type: DataTypes.DATE, allowNull: true },
      finished_at: { type: DataTypes.DATE, allowNull: true },
    },
    { tableName: 'lti_nrps_runs', timestamps: false },
  );
}
