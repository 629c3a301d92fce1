import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

export type EndpointStatus = 'active' | 'paused' | 'disabled';
export type DeliveryStatus = 'pending' | 'delivering' | 'succeeded' | 'failed' | 'dead';

export interface WebhookEndpointRow extends Model<InferAttributes<WebhookEndpointRow>, InferCreationAttributes<WebhookEndpointRow>> {
  id: string;
  institution_id: string;
  url: string;
  description: string;
  /** Patterns: `*`, `family.*` or an exact type. */
  events: string[];
  status: EndpointStatus;
  disabled_reason: string | null;
  consecutive_failures: CreationOptional<number>;
  /** The signing secret, sealed under the master key: a database copy alone does not reveal it. */
  secret_sealed: string;
  /** During a rotation's grace period, the previous secret (also sealed) and when it stops signing. */
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export interface WebhookDeliveryRow extends Model<InferAttributes<WebhookDeliveryRow>, InferCreationAttributes<WebhookDeliveryRow>> {
  id: string;
  institution_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  /** The event JSON as sent: `{id, type, created_at, institution_id, data}`. */
  payload: Record<string, unknown>;
  status: DeliveryStatus;
  attempt_count: CreationOptional<number>;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  /** The sending process (its `sender_leases` id) that holds the claim while `delivering`. */
  claimed_by: CreationOptional<string | null>;
  response_status: number | null;
  response_time_ms: number | null;
  response_body: string | null;
  replay_of: string | null;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export interface WebhookAttemptRow extends Model<InferAttributes<WebhookAttemptRow>, InferCreationAttributes<WebhookAttemptRow>> {
  id: string;
  institution_id: string;
  delivery_id: string;
  at: Date;
  response_status: number | null;
  response_time_ms: number | null;
  response_body: string | null;
  error: string | null;
}

export function defineWebhookEndpoint(sequelize: Sequelize) {
  return sequelize.define<WebhookEndpointRow>(
    'WebhookEndpoint',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      url: { type: DataTypes.STRING(2048), allowNull: false },
      description: { type: DataTypes.STRING(500), allowNull: false, defaultValue: '' },
      events: { type: DataTypes.JSON, allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      disabled_reason: { type: DataTypes.STRING(50), allowNull: true },
      consecutive_failures: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      secret_sealed: { type: DataTypes.TEXT, allowNull: false },
      previous_secret_sealed: { type: DataTypes.TEXT, allowNull: true },
      previous_secret_expires_at: { type: DataTypes.DATE, allowNull: true },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'webhook_endpoints' },
  );
}

export function defineWebhookDelivery(sequelize: Sequelize) {
  return sequelize.define<WebhookDeliveryRow>(
    'WebhookDelivery',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      endpoint_id: { type: DataTypes.STRING(40), allowNull: false },
      event_id: { type: DataTypes.STRING(40), allowNull: false },
      event_type: { type: DataTypes.STRING(100), allowNull: false },
      payload: { type: DataTypes.JSON, allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      attempt_count: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      next_attempt_at: { type: DataTypes.DATE, allowNull: true },
      last_attempt_at: { type: DataTypes.DATE, allowNull: true },
      claimed_by: { type: DataTypes.STRING(40), allowNull: true },
      response_status: { type: DataTypes.INTEGER, allowNull: true },
      response_time_ms: { type: DataTypes.INTEGER, allowNull: true },
      response_body: { type: DataTypes.TEXT, allowNull: true },
      replay_of: { type: DataTypes.STRING(40), allowNull: true },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'webhook_deliveries' },
  );
}

export function defineWebhookAttempt(sequelize: Sequelize) {
  return sequelize.define<WebhookAttemptRow>(
    'WebhookAttempt',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      delivery_id: { type: DataTypes.STRING(40), allowNull: false },
      at: { type: DataTypes.DATE, allowNull: false },
      response_status: { type: DataTypes.INTEGER, allowNull: true },
      response_time_ms: { type: DataTypes.INTEGER, allowNull: true },
      response_body: { type: DataTypes.TEXT, allowNull: true },
      error: { type: DataTypes.STRING(200), allowNull: true },
    },
    { tableName: 'webhook_attempts', timestamps: false },
  );
}

/** A process that sends webhooks, alive while it renews `renewed_at` (every second). */
export interface SenderLeaseRow extends Model<InferAttributes<SenderLeaseRow>, InferCreationAttributes<SenderLeaseRow>> {
  id: string;
  renewed_at: Date;
}

export function defineSenderLease(sequelize: Sequelize) {
  return sequelize.define<SenderLeaseRow>(
    'SenderLease',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      renewed_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'sender_leases', timestamps: false },
  );
}
