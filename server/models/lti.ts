import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

/** An LMS registered by an institution as an LTI 1.3 platform. Keys come from `jwks_url` or a pasted `public_key_pem`. */
export interface LtiPlatformRow extends Model<InferAttributes<LtiPlatformRow>, InferCreationAttributes<LtiPlatformRow>> {
  id: string;
  institution_id: string;
  name: CreationOptional<string>;
  issuer: string;
  client_id: string;
  deployment_ids: string[];
  auth_url: string;
  token_url: string;
  jwks_url: string | null;
  public_key_pem: string | null;
  /** A launch by someone no one matches creates them (Learner → student, Instructor → faculty) instead of answering user_not_found. */
  provision_users: CreationOptional<boolean>;
  /** Origins besides the issuer's and the sign-in URL's allowed to frame the tool's pages (docs/lms.md#inside-the-lms-frame); null: none. */
  frame_origins: CreationOptional<string[] | null>;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

/** One of the tool's RSA signing keys (appliance-wide): the private half sealed under the master key. */
export interface LtiToolKeyRow extends Model<InferAttributes<LtiToolKeyRow>, InferCreationAttributes<LtiToolKeyRow>> {
  id: string;
  kid: string;
  private_key_sealed: string;
  public_jwk: Record<string, unknown>;
  created_at: Date;
  retired_at: Date | null;
  drop_at: Date | null;
}

// Fresh objects per attribute: Sequelize writes into an attribute's definition (its column name).
export const id = () => ({ type: DataTypes.STRING(40), primaryKey: true });
export const ref = () => ({ type: DataTypes.STRING(40), allowNull: false });

export function defineLtiPlatform(sequelize: Sequelize) {
  return sequelize.define<LtiPlatformRow>(
    'LtiPlatform',
    {
      id: id(),
      institution_id: ref(),
      name: { type: DataTypes.STRING(200), allowNull: false, defaultValue: '' },
      issuer: { type: DataTypes.STRING(2048), allowNull: false },
      client_id: { type: DataTypes.STRING(255), allowNull: false },
      deployment_ids: { type: DataTypes.JSON, allowNull: false },
      auth_url: { type: DataTypes.STRING(2048), allowNull: false },
      token_url: { type: DataTypes.STRING(2048), allowNull: false },
      jwks_url: { type: DataTypes.STRING(2048), allowNull: true },
      public_key_pem: { type: DataTypes.TEXT, allowNull: true },
      provision_users: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      frame_origins: { type: DataTypes.JSON, allowNull: true },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'lti_platforms' },
  );
}

export function defineLtiToolKey(sequelize: Sequelize) {
  return sequelize.define<LtiToolKeyRow>(
    'LtiToolKey',
    {
      id: id(),
      kid: { type: DataTypes.STRING(64), allowNull: false },
      private_key_sealed: { type: DataTypes.TEXT, allowNull: false },
      public_jwk: { type: DataTypes.JSON, allowNull: false },
      created_at: { type: DataTypes.DATE, allowNull: false },
      retired_at: { type: DataTypes.DATE, allowNull: true },
      drop_at: { type: DataTypes.DATE, allowNull: true },
    },
    { tableName: 'lti_tool_keys', timestamps: false },
  );
}

/** A single-use Dynamic Registration URL an admin made (its token's SHA-256 only). */
export interface LtiRegistrationRow extends Model<InferAttributes<LtiRegistrationRow>, InferCreationAttributes<LtiRegistrationRow>> {
  id: string;
  institution_id: string;
  token_hash: string;
  expires_at: Date;
  used_at: Date | null;
  created_at: Date;
}

export function defineLtiRegistration(sequelize: Sequelize) {
  return sequelize.define<LtiRegistrationRow>(
    'LtiRegistration',
    {
      id: id(),
      institution_id: ref(),
      token_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      expires_at: { type: DataTypes.DATE, allowNull: false },
      used_at: { type: DataTypes.DATE, allowNull: true },
      created_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'lti_registrations', timestamps: false },
  );
}
