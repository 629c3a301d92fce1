import {
  literal,
  Op,
  type Sequelize,
  type Attributes,
  type CountOptions,
  type CreationAttributes,
  type FindOptions,
  type Model,
  type ModelStatic,
  Transaction,
  type WhereOptions,
} from 'sequelize';
import { cutPage, type Page, type PageRequest } from './paging.js';
import type { FieldCrypto } from '../crypto/field-crypto.js';
import type {
  AlphaActivityRow,
  AlphaBadgeRow,
  AlphaConceptRow,
  AlphaCurriculumRow,
  AlphaEnrollmentRow,
  AlphaMasteryRow,
  AlphaPointsRow,
} from '../models/alpha.js';
import type { ApiKeyRow } from '../models/api-key.js';
import type { AttemptRow, ProctoringEventRow } from '../models/attempt.js';
import type { CouponBatchRow, CouponCodeRow, CouponRedemptionRow } from '../models/coupon.js';
import type { DeviceSeatRow } from '../models/device-seat.js';
import type { EventRow } from '../models/event.js';
import type { ExamAssignmentRow, ExamRow, ExamSecretRow } from '../models/exam.js';
import type { GroupMemberRow, GroupRow } from '../models/group.js';
import type { GuardianLinkRow, GuardianReportRow } from '../models/guardian.js';
import type { InvitationRow } from '../models/invitation.js';
import type { MembershipRow } from '../models/membership.js';
import type { PortalAccountRow } from '../models/portal-account.js';
import type { PortalAuditEntryRow } from '../models/portal-audit.js';
import type { LaunchTokenRow, LearnerSessionRow } from '../models/learner.js';
import type { LicenseRow } from '../models/license.js';
import type { LtiLoginStateRow, LtiNrpsRunRow, LtiPlatformRow, LtiResourceLinkRow, LtiScoreAttemptRow, LtiScorePostRow, LtiSubjectRow } from '../models/lti.js';
import type { MailOutboxRow } from '../models/mail.js';
import type { MeritAllowanceRow, MeritLedgerRow, MeritWalletRow } from '../models/merit.js';
import type { PersonCountRow, PersonRow, PersonSearchRowRow } from '../models/person.js';
import type { OneRosterConnectionRow, OneRosterLinkRow, OneRosterRunRow } from '../models/oneroster.js';
import type { OneRosterGradebookAttemptRow, OneRosterGradebookPostRow, OneRosterLineItemRow } from '../models/oneroster-gradebook.js';
import type { AttemptRecordingRow, RecordingChunkRow } from '../models/recording.js';
import type { StoredFileRow } from '../models/stored-file.js';
import type { SubmissionRow } from '../models/submission.js';
import type { WebhookAttemptRow, WebhookDeliveryRow, WebhookEndpointRow } from '../models/webhook.js';
import type { InstitutionRow } from '../models/institution.js';
import type { Database } from './index.js';
import { plainRowReader } from './plain-rows.js';
import { isPostgres } from './postgres.js';

/**
 * This process's write transactions of each institution, queued in JavaScript before they take a
 * connection: they would only wait for the institution's lock there, and sixteen writers of one
 * institution would hold every connection of the pool (10) idle while reads and other
 * institutions waited for one. Other processes still wait on the lock itself.
 */
const turns = new WeakMap<Sequelize, Map<string, Promise<unknown>>>();

function inTurn<T>(sequelize: Sequelize, institutionId: string, work: () => Promise<T>): Promise<T> {
  let queues = turns.get(sequelize);
  if (!queues) turns.set(sequelize, (queues = new Map()));
  const run = (queues.get(institutionId) ?? Promise.resolve()).then(work);
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  queues.set(institutionId, tail);
  void tail.then(() => {
    if (queues.get(institutionId) === tail) queues.delete(institutionId);
  });
  return run;
}

/** The first key of PostgreSQL advisory locks that stand for an institution's writes ('CB' and 1); the second is the hash of its id. */
const INSTITUTION_WRITE_LOCKS = 0x43420001;

type TenantOwned = Model & { institution_id: string };
type Find<M extends Model> = Omit<FindOptions<Attributes<M>>, 'transaction'>;

/**
 * The only way institution data is read or written. Every call adds the institution's id to
 * the WHERE clause (or to the row, on create) and runs in the scope's transaction, so a query
 * that forgets the tenant cannot be written.
 */
export class ScopedRepo<M extends TenantOwned> {
  constructor(
    private readonly model: ModelStatic<M>,
    private readonly institutionId: string,
    private readonly transaction: Transaction | null,
    private readonly keyed = false,
  ) {}

  /**
   * The same table for reads whose WHERE picks rows by a key or an index of their own (`id IN
   * (…)`, a list or a subquery; a trigram index): the institution is then checked on each row
   * found instead of choosing the index. Without statistics, SQLite's planner prefers an index
   * that starts with institution_id to a list of more than a few ids; PostgreSQL's, asked for a
   * page in an order its (institution_id, …) indexes hold, walks the institution in that order and
   * filters every row. Either reads the whole institution (docs/decisions/people-search.md). The
   * column is written inside an expression that changes nothing (`+institution_id` on SQLite,
   * `institution_id || ''` on PostgreSQL, where `+` does not apply to text), which no index serves.
   */
  byKey(): ScopedRepo<M> {
    return new ScopedRepo(this.model, this.institutionId, this.transaction, true);
  }

  private scoped(where: WhereOptions<Attributes<M>> | undefined): WhereOptions<Attributes<M>> {
    const sequelize = this.model.sequelize!;
    const column = `${sequelize.getQueryInterface().quoteIdentifier(this.model.name)}.institution_id`;
    const own = (this.keyed
      ? literal(`${isPostgres(sequelize) ? `(${column} || '')` : `+${column}`} = ${sequelize.escape(this.institutionId)}`)
      : { institution_id: this.institutionId }) as unknown as WhereOptions<Attributes<M>>;
    return where ? ({ [Op.and]: [where, own] } as WhereOptions<Attributes<M>>) : own;
  }

  findAll(options: Find<M> = {}): Promise<M[]> {
    return this.model.findAll({ ...options, where: this.scoped(options.where), transaction: this.transaction });
  }

  findOne(options: Find<M> = {}): Promise<M | null> {
    return this.model.findOne({ ...options, where: this.scoped(options.where), transaction: this.transaction });
  }

  findById(id: string, options: Find<M> = {}): Promise<M | null> {
    const where = { id } as unknown as WhereOptions<Attributes<M>>;
    return this.findOne({ ...options, where: options.where ? { [Op.and]: [options.where, where] } : where });
  }

  count(options: Omit<CountOptions<Attributes<M>>, 'transaction' | 'group'> = {}): Promise<number> {
    return this.model.count({ ...options, where: this.scoped(options.where), transaction: this.transaction });
  }

  /**
   * One page in `options.order`. The count is a plain `count(*)` (rows of one table are unique;
   * only a join could repeat them). A page in the back half is read from the end in the reversed
   * order, so the last page costs what the first does (docs/decisions/list-indexes.md).
   */
  async page(options: Find<M>, request: PageRequest): Promise<Page<M>> {
    const total = await this.count({ where: options.where, include: options.include, distinct: options.include !== undefined });
    return cutPage(total, request, options.order, (order, limit, offset) => this.findAll({ ...options, order, limit, offset }));
  }

  /**
   * `findAll` for rows that are only presented: their attribute values, not model instances
   * (no `update`, no associations), at about half the cost (docs/decisions/lean-list-reads.md).
   */
  async findAllPlain(options: Omit<Find<M>, 'include' | 'raw'> = {}): Promise<Array<Attributes<M>>> {
    const rows = (await this.model.findAll({ ...options, raw: true, where: this.scoped(options.where), transaction: this.transaction })) as unknown as Array<
      Record<string, unknown>
    >;
    return rows.map(plainRowReader(this.model));
  }

  /** A row of this table read with `raw: true` elsewhere (a join's columns, prefix removed), as `findAllPlain` returns it. */
  plainRow(row: Record<string, unknown>): Attributes<M> {
    return plainRowReader(this.model)(row);
  }

  /** `page` with plain rows, and the total when the caller knows it without counting. */
  async pagePlain(options: Omit<Find<M>, 'include' | 'raw'>, request: PageRequest, knownTotal?: number): Promise<Page<Attributes<M>>> {
    const total = knownTotal ?? (await this.count({ where: options.where }));
    return cutPage(total, request, options.order, (order, limit, offset) => this.findAllPlain({ ...options, order, limit, offset }));
  }

  create(values: Omit<CreationAttributes<M>, 'institution_id'>): Promise<M> {
    const row = { ...values, institution_id: this.institutionId } as unknown as CreationAttributes<M>;
    return this.model.create(row, { transaction: this.transaction });
  }

  bulkCreate(values: ReadonlyArray<Omit<CreationAttributes<M>, 'institution_id'>>): Promise<M[]> {
    const rows = values.map((row) => ({ ...row, institution_id: this.institutionId }) as unknown as CreationAttributes<M>);
    return this.model.bulkCreate(rows, { transaction: this.transaction });
  }

  async update(values: Partial<Attributes<M>>, where: WhereOptions<Attributes<M>>): Promise<number> {
    // A row never changes institution: the owner column is not writable through the scope.
    const { institution_id: _owner, ...own } = values as Partial<Attributes<M>> & { institution_id?: unknown };
    const [affected] = await this.model.update(own as Partial<Attributes<M>>, { where: this.scoped(where), transaction: this.transaction });
    return affected;
  }

  destroy(where: WhereOptions<Attributes<M>>): Promise<number> {
    return this.model.destroy({ where: this.scoped(where), transaction: this.transaction });
  }
}

/**
 * Reads of a table that is not institution-scoped, made on an institution's behalf and in its
 * transaction. Nothing is written through it; see `Tenant.appliance` for why each table is here.
 */
export class ReadOnlyRepo<M extends Model> {
  constructor(
    private readonly model: ModelStatic<M>,
    private readonly transaction: Transaction | null,
  ) {}

  findAll(options: Find<M> = {}): Promise<M[]> {
    return this.model.findAll({ ...options, transaction: this.transaction });
  }

  findOne(options: Find<M> = {}): Promise<M | null> {
    return this.model.findOne({ ...options, transaction: this.transaction });
  }
}

type CurriculumFind = Omit<Find<AlphaCurriculumRow>, 'where'> & { where?: WhereOptions<Attributes<AlphaCurriculumRow>> };

/**
 * The only way curricula are read on an institution's behalf. Curricula are the one Alpha table
 * outside ScopedRepo: a shared curriculum has `institution_id` null and belongs to every
 * institution at once, which `institution_id = <tenant>` cannot express. So the rule is written
 * here, once: the institution's own curricula and the shared ones, never another institution's.
 * Read-only: curricula are made by the operator (the CLI), not by an institution.
 */
export class VisibleCurricula {
  constructor(
    private readonly model: ModelStatic<AlphaCurriculumRow>,
    private readonly institutionId: string,
    private readonly transaction: Transaction | null,
  ) {}

  private visible(where?: WhereOptions<Attributes<AlphaCurriculumRow>>): WhereOptions<Attributes<AlphaCurriculumRow>> {
    const own = { [Op.or]: [{ institution_id: null }, { institution_id: this.institutionId }] } as WhereOptions<Attributes<AlphaCurriculumRow>>;
    return where ? { [Op.and]: [where, own] } : own;
  }

  findAll(options: CurriculumFind = {}): Promise<AlphaCurriculumRow[]> {
    return this.model.findAll({ ...options, where: this.visible(options.where), transaction: this.transaction });
  }

  findById(id: string): Promise<AlphaCurriculumRow | null> {
    return this.model.findOne({ where: this.visible({ id }), transaction: this.transaction });
  }

  count(where?: WhereOptions<Attributes<AlphaCurriculumRow>>): Promise<number> {
    return this.model.count({ where: this.visible(where), transaction: this.transaction });
  }
}

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
export class Tenant {
  readonly apiKeys: ScopedRepo<ApiKeyRow>;
  readonly events: ScopedRepo<EventRow>;
  /** Students and faculty; filter on `role`. */
  readonly people: ScopedRepo<PersonRow>;
  /** Kept by the database's triggers: read, never written. */
  readonly personCounts: ScopedRepo<PersonCountRow>;
  /** SQLite only: the search index's rows (migration 20261206000000-people-search). */
  readonly peopleSearchRows: ScopedRepo<PersonSearchRowRow>;
  readonly licenses: ScopedRepo<LicenseRow>;
  readonly deviceSeats: ScopedRepo<DeviceSeatRow>;
  readonly groups: ScopedRepo<GroupRow>;
  readonly groupMembers: ScopedRepo<GroupMemberRow>;
  readonly guardianLinks: ScopedRepo<GuardianLinkRow>;
  readonly guardianReports: ScopedRepo<GuardianReportRow>;
  readonly mailOutbox: ScopedRepo<MailOutboxRow & { institution_id: string }>;
  readonly auditLog: ScopedRepo<PortalAuditEntryRow & { institution_id: string }>;
  readonly exams: ScopedRepo<ExamRow>;
  readonly examAssignments: ScopedRepo<ExamAssignmentRow>;
  readonly examSecrets: ScopedRepo<ExamSecretRow>;
  readonly files: ScopedRepo<StoredFileRow>;
  readonly launchTokens: ScopedRepo<LaunchTokenRow>;
  readonly learnerSessions: ScopedRepo<LearnerSessionRow>;
  readonly attempts: ScopedRepo<AttemptRow>;
  readonly proctoringEvents: ScopedRepo<ProctoringEventRow>;
  readonly recordings: ScopedRepo<AttemptRecordingRow>;
  readonly recordingChunks: ScopedRepo<RecordingChunkRow>;
  readonly submissions: ScopedRepo<SubmissionRow>;
  readonly webhookEndpoints: ScopedRepo<WebhookEndpointRow>;
  readonly webhookDeliveries: ScopedRepo<WebhookDeliveryRow>;
  readonly webhookAttempts: ScopedRepo<WebhookAttemptRow>;
  // LTI 1.3: registered platforms, resource links to exams, LMS subjects, login states and AGS score posts.
  readonly ltiPlatforms: ScopedRepo<LtiPlatformRow>;
  readonly ltiResourceLinks: ScopedRepo<LtiResourceLinkRow>;
  readonly ltiSubjects: ScopedRepo<LtiSubjectRow>;
  readonly ltiLoginStates: ScopedRepo<LtiLoginStateRow>;
  readonly ltiScorePosts: ScopedRepo<LtiScorePostRow>;
  readonly ltiScoreAttempts: ScopedRepo<LtiScoreAttemptRow>;
  /** Class list (NRPS) syncs of resource links. */
  readonly ltiNrpsRuns: ScopedRepo<LtiNrpsRunRow>;
  readonly couponBatches: ScopedRepo<CouponBatchRow>;
  readonly couponCodes: ScopedRepo<CouponCodeRow>;
  readonly couponRedemptions: ScopedRepo<CouponRedemptionRow>;
  /** At most one row: the institution's merit allowance (absent = nothing granted yet). */
  readonly meritAllowances: ScopedRepo<MeritAllowanceRow>;
  readonly meritWallets: ScopedRepo<MeritWalletRow>;
  readonly meritLedger: ScopedRepo<MeritLedgerRow>;
  /** Portal team: memberships of portal accounts in this institution, and open invitations. */
  readonly memberships: ScopedRepo<MembershipRow>;
  readonly invitations: ScopedRepo<InvitationRow>;
  // Alpha Learning. Curricula are own-or-shared, not ScopedRepo: see VisibleCurricula.
  readonly alphaCurricula: VisibleCurricula;
  readonly alphaEnrollments: ScopedRepo<AlphaEnrollmentRow>;
  readonly alphaMastery: ScopedRepo<AlphaMasteryRow>;
  readonly alphaActivities: ScopedRepo<AlphaActivityRow>;
  readonly alphaPoints: ScopedRepo<AlphaPointsRow>;
  readonly alphaBadges: ScopedRepo<AlphaBadgeRow>;
  // OneRoster roster sync: the SIS connection, its sourcedId links and its runs.
  readonly onerosterConnections: ScopedRepo<OneRosterConnectionRow>;
  readonly onerosterLinks: ScopedRepo<OneRosterLinkRow>;
  readonly onerosterRuns: ScopedRepo<OneRosterRunRow>;
  // OneRoster gradebook write-back: line items per exam and class, result posts and their attempts.
  readonly onerosterLineItems: ScopedRepo<OneRosterLineItemRow>;
  readonly onerosterGradebookPosts: ScopedRepo<OneRosterGradebookPostRow>;
  readonly onerosterGradebookAttempts: ScopedRepo<OneRosterGradebookAttemptRow>;
  /** Not institution data: the few appliance-wide reads an institution's work needs (read-only). */
  readonly appliance: ApplianceReads;
  /** Seals and opens sensitive columns (master key); holds no data. Named as on Database, so helpers take either. */
  readonly fieldCrypto: FieldCrypto;

  constructor(
    // Private: institution data has one door, the repositories above. Nothing reaches the models around them.
    private readonly db: Database,
    readonly institutionId: string,
    readonly tx: Transaction | null = null,
  ) {
    const { models } = db;
    this.apiKeys = new ScopedRepo(models.ApiKey, institutionId, tx);
    this.events = new ScopedRepo(models.Event, institutionId, tx);
    this.people = new ScopedRepo(models.Person, institutionId, tx);
    this.personCounts = new ScopedRepo(models.PersonCount, institutionId, tx);
    this.peopleSearchRows = new ScopedRepo(models.PersonSearchRow, institutionId, tx);
    this.licenses = new ScopedRepo(models.License, institutionId, tx);
    this.deviceSeats = new ScopedRepo(models.DeviceSeat, institutionId, tx);
    this.groups = new ScopedRepo(models.Group, institutionId, tx);
    this.groupMembers = new ScopedRepo(models.GroupMember, institutionId, tx);
    this.guardianLinks = new ScopedRepo(models.GuardianLink, institutionId, tx);
    this.guardianReports = new ScopedRepo(models.GuardianReport, institutionId, tx);
    this.mailOutbox = new ScopedRepo(models.MailOutbox as never, institutionId, tx);
    this.auditLog = new ScopedRepo(models.PortalAuditEntry as never, institutionId, tx);
    this.exams = new ScopedRepo(models.Exam, institutionId, tx);
    this.examAssignments = new ScopedRepo(models.ExamAssignment, institutionId, tx);
    this.examSecrets = new ScopedRepo(models.ExamSecret, institutionId, tx);
    this.files = new ScopedRepo(models.StoredFile, institutionId, tx);
    this.launchTokens = new ScopedRepo(models.LaunchToken, institutionId, tx);
    this.learnerSessions = new ScopedRepo(models.LearnerSession, institutionId, tx);
    this.attempts = new ScopedRepo(models.Attempt, institutionId, tx);
    this.proctoringEvents = new ScopedRepo(models.ProctoringEvent, institutionId, tx);
    this.recordings = new ScopedRepo(models.AttemptRecording, institutionId, tx);
    this.recordingChunks = new ScopedRepo(models.RecordingChunk, institutionId, tx);
    this.submissions = new ScopedRepo(models.Submission, institutionId, tx);
    this.webhookEndpoints = new ScopedRepo(models.WebhookEndpoint, institutionId, tx);
    this.webhookDeliveries = new ScopedRepo(models.WebhookDelivery, institutionId, tx);
    this.webhookAttempts = new ScopedRepo(models.WebhookAttempt, institutionId, tx);
    this.ltiPlatforms = new ScopedRepo(models.LtiPlatform, institutionId, tx);
    this.ltiResourceLinks = new ScopedRepo(models.LtiResourceLink, institutionId, tx);
    this.ltiSubjects = new ScopedRepo(models.LtiSubject, institutionId, tx);
    this.ltiLoginStates = new ScopedRepo(models.LtiLoginState, institutionId, tx);
    this.ltiScorePosts = new ScopedRepo(models.LtiScorePost, institutionId, tx);
    this.ltiScoreAttempts = new ScopedRepo(models.LtiScoreAttempt, institutionId, tx);
    this.ltiNrpsRuns = new ScopedRepo(models.LtiNrpsRun, institutionId, tx);
    this.couponBatches = new ScopedRepo(models.CouponBatch, institutionId, tx);
    this.couponCodes = new ScopedRepo(models.CouponCode, institutionId, tx);
    this.couponRedemptions = new ScopedRepo(models.CouponRedemption, institutionId, tx);
    this.meritAllowances = new ScopedRepo(models.MeritAllowance, institutionId, tx);
    this.meritWallets = new ScopedRepo(models.MeritWallet, institutionId, tx);
    this.meritLedger = new ScopedRepo(models.MeritLedgerEntry, institutionId, tx);
    this.alphaEnrollments = new ScopedRepo(models.AlphaEnrollment, institutionId, tx);
    this.alphaMastery = new ScopedRepo(models.AlphaMastery, institutionId, tx);
    this.alphaActivities = new ScopedRepo(models.AlphaActivity, institutionId, tx);
    this.alphaPoints = new ScopedRepo(models.AlphaPoints, institutionId, tx);
    this.alphaBadges = new ScopedRepo(models.AlphaBadge, institutionId, tx);
    this.onerosterConnections = new ScopedRepo(models.OneRosterConnection, institutionId, tx);
    this.onerosterLinks = new ScopedRepo(models.OneRosterLink, institutionId, tx);
    this.onerosterRuns = new ScopedRepo(models.OneRosterRun, institutionId, tx);
    this.onerosterLineItems = new ScopedRepo(models.OneRosterLineItem, institutionId, tx);
    this.onerosterGradebookPosts = new ScopedRepo(models.OneRosterGradebookPost, institutionId, tx);
    this.onerosterGradebookAttempts = new ScopedRepo(models.OneRosterGradebookAttempt, institutionId, tx);
    this.memberships = new ScopedRepo(models.Membership, institutionId, tx);
    this.invitations = new ScopedRepo(models.Invitation, institutionId, tx);
    this.alphaCurricula = new VisibleCurricula(models.AlphaCurriculum, institutionId, tx);
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
