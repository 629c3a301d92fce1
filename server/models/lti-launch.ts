import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';
import { id, ref } from './lti.js';

export interface LtiResourceLinkRow extends Model<InferAttributes<LtiResourceLinkRow>, InferCreationAttributes<LtiResourceLinkRow>> {
  id: string;
  institution_id: string;
  platform_id: string;
  resource_link_id: string;
  exam_id: string | null;
  title: string | null;
  context_id: string | null;
  /** The AGS line item of this link, from the launch's endpoint claim; scores go to `{line_item_url}/scores`. */
  line_item_url: string | null;
  /** The context's NRPS 2.0 memberships URL, from an instructor's launch (docs/lms.md#names-and-role-provisioning-class-lists-from-the-lms). */
  memberships_url: CreationOptional<string | null>;
  /** The context's title at the last launch that carried it: the name of a group a class list sync makes. */
  context_title: CreationOptional<string | null>;
  /** The group the class list keeps equal to the context's learners (chosen or made by the first sync). */
  members_group_id: CreationOptional<string | null>;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

/** The LMS's `sub` for a person of the institution, per platform. */
export interface LtiSubjectRow extends Model<InferAttributes<LtiSubjectRow>, InferCreationAttributes<LtiSubjectRow>> {
  id: string;
  institution_id: string;
  platform_id: string;
  subject: string;
  person_id: string;
  created_at: Date;
}

/** A login initiation's state (only its hash) and nonce: single-use, minutes long. */
export interface LtiLoginStateRow extends Model<InferAttributes<LtiLoginStateRow>, InferCreationAttributes<LtiLoginStateRow>> {
  id: string;
  institution_id: string;
  platform_id: string;
  state_hash: string;
  nonce: string;
  /** The frame the platform keeps LTI Platform Storage in (`lti_storage_target`), when it offers it. */
  storage_target: CreationOptional<string | null>;
  expires_at: Date;
  used_at: Date | null;
  created_at: Date;
}

export function defineLtiResourceLink(sequelize: Sequelize) {
  return sequelize.define<LtiResourceLinkRow>(
    'LtiResourceLink',
    {
      id: id(),
      institution_id: ref(),
      platform_id: ref(),
      resource_link_id: { type: DataTypes.STRING(255), allowNull: false },
      exam_id: { type: DataTypes.STRING(40), allowNull: true },
      title: { type: DataTypes.STRING(500), allowNull: true },
      context_id: { type: DataTypes.STRING(255), allowNull: true },
      line_item_url: { type: DataTypes.STRING(2048), allowNull: true },
      memberships_url: { type: DataTypes.STRING(2048), allowNull: true },
      context_title: { type: DataTypes.STRING(500), allowNull: true },
      members_group_id: { type: DataTypes.STRING(40), allowNull: true },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'lti_resource_links' },
  );
}

export function defineLtiSubject(sequelize: Sequelize) {
  return sequelize.define<LtiSubjectRow>(
    'LtiSubject',
    {
      id: id(),
      institution_id: ref(),
      platform_id: ref(),
      subject: { type: DataTypes.STRING(255), allowNull: false },
      person_id: ref(),
      created_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'lti_subjects', timestamps: false },
  );
}

export function defineLtiLoginState(sequelize: Sequelize) {
  return sequelize.define<LtiLoginStateRow>(
    'LtiLoginState',
    {
      id: id(),
      institution_id: ref(),
      platform_id: ref(),
      state_hash: { type: DataTypes.STRING(64), allowNull: false },
      nonce: { type: DataTypes.STRING(64), allowNull: false },
      storage_target: { type: DataTypes.STRING(64), allowNull: true },
      expires_at: { type: DataTypes.DATE, allowNull: false },
      used_at: { type: DataTypes.DATE, allowNull: true },
      created_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'lti_login_states', timestamps: false },
  );
}
