import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

/** How long the audit log keeps an entry (the daily prune-audit-log job). */
export const AUDIT_RETENTION_DAYS = 365;

/** One change made in the portal: who, what, on which ids, from where. Never a request body. */
export interface PortalAuditEntryRow extends Model<InferAttributes<PortalAuditEntryRow>, InferCreationAttributes<PortalAuditEntryRow>> {
  id: string;
  /** The institution the action concerned; null for appliance-wide operator actions. */
  institution_id: string | null;
  account_id: string | null;
  /** Kept as it was at the time, so the entry still reads right after the account is gone. */
  actor_email: string;
  /** `POST /institutions/{id}/keys`: the portal operation, by its path pattern. */
  action: string;
  description: string;
  /** JSON object of ids: the path parameters and the ids of what was created. */
  target: string;
  ip: string | null;
  request_id: string;
  created_at: CreationOptional<Date>;
}

export function definePortalAuditEntry(sequelize: Sequelize) {
  return sequelize.define<PortalAuditEntryRow>(
    'PortalAuditEntry',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: true },
      account_id: { type: DataTypes.STRING(40), allowNull: true },
      actor_email: { type: DataTypes.STRING(320), allowNull: false },
      action: { type: DataTypes.STRING(200), allowNull: false },
      description: { type: DataTypes.STRING(300), allowNull: false },
      target: { type: DataTypes.TEXT, allowNull: false },
      ip: { type: DataTypes.STRING(64), allowNull: true },
      request_id: { type: DataTypes.STRING(100), allowNull: false },
      created_at: DataTypes.DATE,
    },
    { tableName: 'portal_audit_log', updatedAt: false },
  );
}
