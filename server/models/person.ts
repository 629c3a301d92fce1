import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

export type PersonRole = 'student' | 'faculty';
export type PersonStatus = 'active' | 'suspended';

export interface PersonRow extends Model<InferAttributes<PersonRow>, InferCreationAttributes<PersonRow>> {
  id: string;
  institution_id: string;
  role: PersonRole;
  /** Generated once at creation, never changed: usable in place of the id. */
  login_email: string;
  full_name: string;
  /** The institution's own identifier (`student_id` or `faculty_id` in the API). */
  external_id: string | null;
  /** AES-256-GCM under the master key; never presented. */
  personal_email_sealed: string | null;
  /** HMAC of the lower-cased personal email, for the `email` filter. */
  personal_email_index: string | null;
  status: PersonStatus;
  /** Name, id and login e-mail folded for `q` (server/db/search-text.ts); set with them on every write. */
  search_text: string;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

/** A person's stored values, as a list reads them (no model instance). */
export type PersonRecord = InferAttributes<PersonRow>;

/** Students and faculty share one table: one login-email namespace, one license owner. */
export function definePerson(sequelize: Sequelize) {
  return sequelize.define<PersonRow>(
    'Person',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      role: { type: DataTypes.STRING(16), allowNull: false },
      login_email: { type: DataTypes.STRING(320), allowNull: false, unique: true },
      full_name: { type: DataTypes.STRING(200), allowNull: false },
      external_id: { type: DataTypes.STRING(100), allowNull: true },
      personal_email_sealed: { type: DataTypes.TEXT, allowNull: true },
      personal_email_index: { type: DataTypes.STRING(64), allowNull: true },
      status: { type: DataTypes.STRING(16), allowNull: false },
      search_text: { type: DataTypes.TEXT, allowNull: false },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'people' },
  );
}

export interface PersonCountRow extends Model<InferAttributes<PersonCountRow>, InferCreationAttributes<PersonCountRow>> {
  institution_id: string;
  role: PersonRole;
  status: PersonStatus;
  total: number;
}

/**
 * How many people an institution has per role and status, kept by the database's triggers
 * (migration 20261128000000-person-counts); read-only here.
 */
export function definePersonCount(sequelize: Sequelize) {
  return sequelize.define<PersonCountRow>(
    'PersonCount',
    {
      institution_id: { type: DataTypes.STRING(40), primaryKey: true },
      role: { type: DataTypes.STRING(16), primaryKey: true },
      status: { type: DataTypes.STRING(16), primaryKey: true },
      total: { type: DataTypes.INTEGER, allowNull: false },
    },
    { tableName: 'person_counts', timestamps: false },
  );
}

export interface PersonSearchRowRow extends Model<InferAttributes<PersonSearchRowRow>, InferCreationAttributes<PersonSearchRowRow>> {
  search_rowid: number;
  person_id: string;
  institution_id: string;
  role: PersonRole;
  status: PersonStatus;
  external_id: string | null;
  full_name: string;
  created_at: Date;
}

/**
 * SQLite only: a person's row beside the FTS5 search index, keyed by the FTS row's integer, with
 * the columns a list filters and sorts by (migration 20261206000000-people-search); kept by the
 * database's triggers, read-only here. PostgreSQL has no such table: its index is on `people`.
 */
export function definePersonSearchRow(sequelize: Sequelize) {
  return sequelize.define<PersonSearchRowRow>(
    'PersonSearchRow',
    {
      search_rowid: { type: DataTypes.INTEGER, primaryKey: true },
      person_id: { type: DataTypes.STRING(40), allowNull: false },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      role: { type: DataTypes.STRING(16), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      external_id: { type: DataTypes.STRING(100), allowNull: true },
      full_name: { type: DataTypes.STRING(200), allowNull: false },
      created_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'people_search_rows', timestamps: false },
  );
}
