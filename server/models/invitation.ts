import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';
import type { MembershipRole } from './membership.js';

export type InvitationStatus = 'pending' | 'accepted';

/** An invitation to join an institution in the portal (a developer, for now), mailed as a link. */
export interface InvitationRow extends Model<InferAttributes<InvitationRow>, InferCreationAttributes<InvitationRow>> {
  id: string;
  institution_id: string;
  /** Lower case; the account that accepts is the account with this email. */
  email: string;
  role: MembershipRole;
  status: InvitationStatus;
  /** SHA-256 of the link's token, hex; replaced on resend, null once accepted. */
  token_hash: string | null;
  expires_at: Date;
  invited_by: string | null;
  /** When the current link was mailed (the first invitation or the latest resend). */
  sent_at: Date;
  accepted_at: Date | null;
  accepted_by: string | null;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export function defineInvitation(sequelize: Sequelize) {
  return sequelize.define<InvitationRow>(
    'Invitation',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      email: { type: DataTypes.STRING(320), allowNull: false },
      role: { type: DataTypes.STRING(16), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      token_hash: { type: DataTypes.STRING(64), allowNull: true, unique: true },
      expires_at: { type: DataTypes.DATE, allowNull: false },
      invited_by: { type: DataTypes.STRING(40), allowNull: true },
      sent_at: { type: DataTypes.DATE, allowNull: false },
      accepted_at: { type: DataTypes.DATE, allowNull: true },
      accepted_by: { type: DataTypes.STRING(40), allowNull: true },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'invitations' },
  );
}
