import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';
import { outboundPostColumns } from './outbound-post.js';

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

export type ScorePostStatus = 'pending' | 'delivering' | 'succeeded' | 'dead';

/** An AGS score waiting for, or past, its POST to the platform's line item: a row before it is a request. */
export interface LtiScorePostRow extends Model<InferAttributes<LtiScorePostRow>, InferCreationAttributes<LtiScorePostRow>> {
  id: string;
  institution_id: string;
  platform_id: string;
  submission_id: string;
  line_item_url: string;
  /** The score JSON exactly as sent (application/vnd.ims.lis.v1.score+json). */
  payload: Record<string, unknown>;
  status: ScorePostStatus;
  attempt_count: CreationOptional<number>;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  response_status: number | null;
  error: string | null;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export interface LtiScoreAttemptRow extends Model<InferAttributes<LtiScoreAttemptRow>, InferCreationAttributes<LtiScoreAttemptRow>> {
  id: string;
  institution_id: string;
  score_post_id: string;
  at: Date;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
}

// Fresh objects per attribute: Sequelize writes into an attribute's definition (its column name).
const id = () => ({ type: DataTypes.STRING(40), primaryKey: true });
const ref = () => ({ type: DataTypes.STRING(40), allowNull: false });

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

export function defineLtiScorePost(sequelize: Sequelize) {
  return sequelize.define<LtiScorePostRow>(
    'LtiScorePost',
    {
      id: id(),
      institution_id: ref(),
      platform_id: ref(),
      submission_id: ref(),
      line_item_url: { type: DataTypes.STRING(2048), allowNull: false },
      payload: { type: DataTypes.JSON, allowNull: false },
      ...outboundPostColumns(),
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'lti_score_posts' },
  );
}

export function defineLtiScoreAttempt(sequelize: Sequelize) {
  return sequelize.define<LtiScoreAttemptRow>(
    'LtiScoreAttempt',
    {
      id: id(),
      institution_id: ref(),
      score_post_id: ref(),
      at: { type: DataTypes.DATE, allowNull: false },
      response_status: { type: DataTypes.INTEGER, allowNull: true },
      response_body: { type: DataTypes.TEXT, allowNull: true },
      error: { type: DataTypes.STRING(200), allowNull: true },
    },
    { tableName: 'lti_score_attempts', timestamps: false },
  );
}

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
