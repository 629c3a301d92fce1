import { Op, Transaction } from 'sequelize';
import type { FieldCrypto } from '../crypto/field-crypto.js';
import type { AlphaConceptRow } from '../models/alpha.js';
import type { EventRow } from '../models/event.js';
import type { InstitutionRow } from '../models/institution.js';
import type { PortalAccountRow } from '../models/portal-account.js';
import type { Database } from './index.js';
import { isPostgres } from './postgres.js';
import { ReadOnlyRepo } from './scoped-repo.js';
import { TenantRepos } from './tenant-repos.js';
import { INSTITUTION_WRITE_LOCKS, inTurn } from './write-turns.js';

/** What an institution's work may read outside its own rows; each entry says why it is not scoped. */
export interface ApplianceReads {
  /** Portal accounts are people, not institution data: one account may be a member of several institutions. */
  readonly portalAccounts: ReadOnlyRepo<PortalAccountRow>;
  /** Concepts belong to a curriculum, which may be shared; callers pass only curriculum ids from `alphaCurricula`. */
  readonly alphaConcepts: ReadOnlyRepo<AlphaConceptRow>;
  /** Coupon codes are unique across institutions: which of `codes` exist anywhere (only existence is read). */
  readonly takenCouponCodes: (codes: readonly string[]) => Promise<Set<string>>;
  /** Generated login-email domains are unique across institutions: the taken ones LIKE `pattern` (only the domain is read). */
  readonly emailDomainsLike: (pattern: string) => Promise<string[]>;
  /** LTI platforms are found by issuer and client id across the appliance (a launch names only those): whether the pair is taken anywhere. */
  readonly ltiPlatformExists: (issuer: string, clientId: string) => Promise<boolean>;
}

/** One institution's view of the database, taken from the authenticated key (or the CLI's argument). */
export class Tenant extends TenantRepos {
  /** Not institution data: the few appliance-wide reads an institution's work needs (read-only). */
  readonly appliance: ApplianceReads;
  /** Seals and opens sensitive columns (master key); holds no data. Named as on Database, so helpers take either. */
  readonly fieldCrypto: FieldCrypto;

  constructor(
    // Private: institution data has one door, the repositories of TenantRepos. Nothing reaches the models around them.
    private readonly db: Database,
    institutionId: string,
    tx: Transaction | null = null,
  ) {
    super(db.models, institutionId, tx);
    const { models } = db;
    this.appliance = {
      portalAccounts: new ReadOnlyRepo(models.PortalAccount, tx),
      alphaConcepts: new ReadOnlyRepo(models.AlphaConcept, tx),
      takenCouponCodes: async (codes) => {
        const rows = await models.CouponCode.findAll({ attributes: ['code'], where: { code: { [Op.in]: [...codes] } }, transaction: tx });
        return new Set(rows.map((row) => row.code));
      },
      emailDomainsLike: async (pattern) => {
        const rows = await models.Institution.findAll({ attributes: ['email_domain'], where: { email_domain: { [Op.like]: pattern } }, transaction: tx });
        return rows.flatMap((row) => (row.email_domain ? [row.email_domain] : []));
      },
      ltiPlatformExists: async (issuer, clientId) => (await models.LtiPlatform.count({ where: { issuer, client_id: clientId }, transaction: tx })) > 0,
    };
    this.fieldCrypto = db.fieldCrypto;
  }

  /** Whether this is PostgreSQL, for the few reads written differently for each database (the people search index). */
  get onPostgres(): boolean {
    return isPostgres(this.db.sequelize);
  }

  /** The value as an SQL string literal in this database's dialect (for patterns built in SQL); reads nothing. */
  sqlString(value: string): string {
    return this.db.sequelize.escape(value);
  }

  /** The institution row itself (profile, status, integration config). */
  async institution(): Promise<InstitutionRow> {
    const row = await this.db.models.Institution.findByPk(this.institutionId, { transaction: this.tx });
    if (!row) throw new Error(`institution ${this.institutionId} vanished`);
    return row;
  }

  /**
   * Runs `work` in a write transaction of this institution (or joins the current one). SQLite runs
   * write transactions one at a time anyway. On PostgreSQL the transaction runs at READ COMMITTED
   * and first takes the institution's write lock, held until it ends: the writes of one
   * institution run one after another, each seeing everything committed before it, as on SQLite,
   * and those of different institutions side by side. A writer waits for the lock instead of
   * failing a serialization check, so no invariant of an institution (balances, seats, unique login
   * e-mails, one attempt per student, the order of its events) needs a retry or a lock of its own
   * (docs/scale-out.md#transactions).
   */
  inTransaction<T>(work: (tx: TenantTx) => Promise<T>): Promise<T> {
    if (this.tx) return work(this as TenantTx);
    const { sequelize } = this.db;
    if (!isPostgres(sequelize)) return sequelize.transaction((transaction) => work(new Tenant(this.db, this.institutionId, transaction) as TenantTx));
    return inTurn(sequelize, this.institutionId, () =>
      sequelize.transaction({ isolationLevel: Transaction.ISOLATION_LEVELS.READ_COMMITTED }, async (transaction) => {
        await sequelize.query('SELECT pg_advisory_xact_lock(:space, hashtext(:institution))', {
          replacements: { space: INSTITUTION_WRITE_LOCKS, institution: this.institutionId },
          transaction,
        });
        return work(new Tenant(this.db, this.institutionId, transaction) as TenantTx);
      }),
    );
  }

  /**
   * `inTransaction` for work that shares rows with the webhook engine and takes its row locks in the
   * engine's order (the engine never takes an institution's lock, so the two cannot wait on each other).
   */
  inRowLockedTransaction<T>(work: (tx: TenantTx) => Promise<T>): Promise<T> {
    return this.inTransaction(work);
  }

  /** Once this transaction commits, hands `events` to the appliance's event listeners (the webhook dispatcher). */
  afterCommitEvents(this: TenantTx, events: readonly EventRow[]): void {
    const listeners = this.db.committedEventListeners;
    if (listeners.size === 0 || events.length === 0) return;
    this.tx.afterCommit(() => {
      for (const listener of listeners) listener(events);
    });
  }

  /** Once this transaction commits, tells the mailer that mail was queued. */
  afterCommitMail(this: TenantTx): void {
    const listeners = this.db.mailQueuedListeners;
    if (listeners.size === 0) return;
    this.tx.afterCommit(() => {
      for (const listener of listeners) listener();
    });
  }
}

export type TenantTx = Tenant & { readonly tx: Transaction };
