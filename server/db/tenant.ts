import {
  Op,
  type Attributes,
  type CountOptions,
  type CreationAttributes,
  type FindOptions,
  type Model,
  type ModelStatic,
  type Transaction,
  type WhereOptions,
} from 'sequelize';
import type { AlphaActivityRow, AlphaBadgeRow, AlphaEnrollmentRow, AlphaMasteryRow, AlphaPointsRow } from '../models/alpha.js';
import type { ApiKeyRow } from '../models/api-key.js';
import type { AttemptRow, ProctoringEventRow } from '../models/attempt.js';
import type { CouponBatchRow, CouponCodeRow, CouponRedemptionRow } from '../models/coupon.js';
import type { DeviceSeatRow } from '../models/device-seat.js';
import type { EventRow } from '../models/event.js';
import type { ExamAssignmentRow, ExamRow, ExamSecretRow } from '../models/exam.js';
import type { GroupMemberRow, GroupRow } from '../models/group.js';
import type { GuardianLinkRow, GuardianReportRow } from '../models/guardian.js';
import type { PortalAuditEntryRow } from '../models/portal-audit.js';
import type { LaunchTokenRow, LearnerSessionRow } from '../models/learner.js';
import type { LicenseRow } from '../models/license.js';
import type { MailOutboxRow } from '../models/mail.js';
import type { MeritAllowanceRow, MeritLedgerRow, MeritWalletRow } from '../models/merit.js';
import type { PersonRow } from '../models/person.js';
import type { StoredFileRow } from '../models/stored-file.js';
import type { SubmissionRow } from '../models/submission.js';
import type { WebhookAttemptRow, WebhookDeliveryRow, WebhookEndpointRow } from '../models/webhook.js';
import type { InstitutionRow } from '../models/institution.js';
import type { Database } from './index.js';

type TenantOwned = Model & { institution_id: string };
type Find<M extends Model> = Omit<FindOptions<Attributes<M>>, 'transaction'>;

export interface Page<T> {
  items: T[];
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

export interface PageRequest {
  page: number;
  limit: number;
}

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
  ) {}

  private scoped(where: WhereOptions<Attributes<M>> | undefined): WhereOptions<Attributes<M>> {
    const own = { institution_id: this.institutionId } as unknown as WhereOptions<Attributes<M>>;
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

  async page(options: Find<M>, request: PageRequest): Promise<Page<M>> {
    const [total, items] = await Promise.all([
      this.count({ where: options.where, include: options.include, distinct: true }),
      this.findAll({ ...options, limit: request.limit, offset: (request.page - 1) * request.limit }),
    ]);
    return { items, page: request.page, limit: request.limit, total, totalPages: Math.ceil(total / request.limit) };
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

/** One institution's view of the database, taken from the authenticated key (or the CLI's argument). */
export class Tenant {
  readonly apiKeys: ScopedRepo<ApiKeyRow>;
  readonly events: ScopedRepo<EventRow>;
  /** Students and faculty; filter on `role`. */
  readonly people: ScopedRepo<PersonRow>;
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
  readonly submissions: ScopedRepo<SubmissionRow>;
  readonly webhookEndpoints: ScopedRepo<WebhookEndpointRow>;
  readonly webhookDeliveries: ScopedRepo<WebhookDeliveryRow>;
  readonly webhookAttempts: ScopedRepo<WebhookAttemptRow>;
  readonly couponBatches: ScopedRepo<CouponBatchRow>;
  readonly couponCodes: ScopedRepo<CouponCodeRow>;
  readonly couponRedemptions: ScopedRepo<CouponRedemptionRow>;
  /** At most one row: the institution's merit allowance (absent = nothing granted yet). */
  readonly meritAllowances: ScopedRepo<MeritAllowanceRow>;
  readonly meritWallets: ScopedRepo<MeritWalletRow>;
  readonly meritLedger: ScopedRepo<MeritLedgerRow>;
  // Alpha Learning. Curricula are not here: shared ones have no institution (see curriculaVisibleTo).
  readonly alphaEnrollments: ScopedRepo<AlphaEnrollmentRow>;
  readonly alphaMastery: ScopedRepo<AlphaMasteryRow>;
  readonly alphaActivities: ScopedRepo<AlphaActivityRow>;
  readonly alphaPoints: ScopedRepo<AlphaPointsRow>;
  readonly alphaBadges: ScopedRepo<AlphaBadgeRow>;

  constructor(
    readonly db: Database,
    readonly institutionId: string,
    readonly tx: Transaction | null = null,
  ) {
    const { models } = db;
    this.apiKeys = new ScopedRepo(models.ApiKey, institutionId, tx);
    this.events = new ScopedRepo(models.Event, institutionId, tx);
    this.people = new ScopedRepo(models.Person, institutionId, tx);
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
    this.submissions = new ScopedRepo(models.Submission, institutionId, tx);
    this.webhookEndpoints = new ScopedRepo(models.WebhookEndpoint, institutionId, tx);
    this.webhookDeliveries = new ScopedRepo(models.WebhookDelivery, institutionId, tx);
    this.webhookAttempts = new ScopedRepo(models.WebhookAttempt, institutionId, tx);
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
  }

  /** The institution row itself (profile, status, integration config). */
  async institution(): Promise<InstitutionRow> {
    const row = await this.db.models.Institution.findByPk(this.institutionId, { transaction: this.tx });
    if (!row) throw new Error(`institution ${this.institutionId} vanished`);
    return row;
  }

  /** Runs `work` in a write transaction (or joins the current one). */
  inTransaction<T>(work: (tx: TenantTx) => Promise<T>): Promise<T> {
    if (this.tx) return work(this as TenantTx);
    return this.db.sequelize.transaction((transaction) => work(new Tenant(this.db, this.institutionId, transaction) as TenantTx));
  }
}

export type TenantTx = Tenant & { readonly tx: Transaction };
