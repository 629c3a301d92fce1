import type { PersonStatus } from './person.js';
import type { SubmissionStatus } from './submission.js';
import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

export type GuardianType = 'father' | 'mother' | 'guardian';

export type LicenseSummary = { status: 'active' | 'expired' | 'revoked' | 'none'; expires_at: string | null };

/** A submission made or graded in the reported week. */
export interface ReportSubmission {
  exam_id: string;
  exam_title: string;
  status: SubmissionStatus;
  /** Null until graded. */
  score: number | null;
  max_score: number | null;
  /** Whether the teacher wrote feedback; the feedback itself stays in the student's app. */
  has_feedback: boolean;
  submitted_at: string;
  graded_at: string | null;
}

/** A published exam of one of the student's groups, due within 7 days of the report, not yet handed in. */
export interface ReportUpcomingExam {
  exam_id: string;
  exam_title: string;
  due_date: string;
  max_score: number | null;
}

export interface ReportAlpha {
  /** Practice minutes recorded on the week's days (UTC). */
  minutes: number;
  activities: number;
  points_earned: number;
  /** The balance at the end of the week. */
  points_total: number;
  /** Mastery when the report was made, per enrolled curriculum, in enrollment order. */
  curricula: Array<{
    curriculum_id: string;
    name: string;
    concepts_total: number;
    concepts_mastered: number;
    /** Mean over every concept (0..1), unpractised ones counting 0; null without concepts. */
    average_mastery: number | null;
  }>;
}

/** What a guardian is told about one student for one week: the report's stored content, its API body and its mail. */
export interface WeeklySummary {
  student: { full_name: string; status: PersonStatus };
  week: { start: string; end: string };
  license: LicenseSummary;
  groups: string[];
  /** Events of the week whose data names the student (`data.student_id`), by type. */
  activity: { events: number; by_type: Record<string, number> };
  submissions: ReportSubmission[];
  upcoming_exams: ReportUpcomingExam[];
  /** The days `upcoming_exams` covers: the 7 days from when the report was made, which may be after the week. */
  upcoming_window: { start: string; end: string };
  alpha: ReportAlpha;
  /** When the report was made: on the Monday after the week, or later when the appliance was off then. */
  made_at: string;
}

/** As stored: reports made before submissions, upcoming exams and Alpha were added lack those sections. */
export type StoredWeeklySummary = Omit<WeeklySummary, 'submissions' | 'upcoming_exams' | 'alpha' | 'upcoming_window' | 'made_at'> &
  Partial<Pick<WeeklySummary, 'submissions' | 'upcoming_exams' | 'alpha' | 'upcoming_window' | 'made_at'>>;

export interface GuardianLinkRow extends Model<InferAttributes<GuardianLinkRow>, InferCreationAttributes<GuardianLinkRow>> {
  id: string;
  institution_id: string;
  student_id: string;
  guardian_email: string;
  guardian_type: GuardianType;
  guardian_name: string | null;
  guardian_phone: string | null;
  is_primary: boolean;
  verified: boolean;
  /** SHA-256 of the current invitation token; a resend replaces it, voiding the old link. */
  invite_token_hash: string | null;
  invite_expires_at: Date | null;
  invited_at: Date;
  verified_at: Date | null;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export interface GuardianReportRow extends Model<InferAttributes<GuardianReportRow>, InferCreationAttributes<GuardianReportRow>> {
  id: string;
  institution_id: string;
  student_id: string;
  /** Monday of the reported week, `YYYY-MM-DD`. */
  week_start: string;
  summary: StoredWeeklySummary;
  created_at: Date;
}

export function defineGuardianLink(sequelize: Sequelize) {
  return sequelize.define<GuardianLinkRow>(
    'GuardianLink',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      student_id: { type: DataTypes.STRING(40), allowNull: false },
      guardian_email: { type: DataTypes.STRING(320), allowNull: false },
      guardian_type: { type: DataTypes.STRING(16), allowNull: false },
      guardian_name: { type: DataTypes.STRING(200), allowNull: true },
      guardian_phone: { type: DataTypes.STRING(50), allowNull: true },
      is_primary: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      verified: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      invite_token_hash: { type: DataTypes.STRING(64), allowNull: true },
      invite_expires_at: { type: DataTypes.DATE, allowNull: true },
      invited_at: { type: DataTypes.DATE, allowNull: false },
      verified_at: { type: DataTypes.DATE, allowNull: true },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'guardian_links' },
  );
}

export function defineGuardianReport(sequelize: Sequelize) {
  return sequelize.define<GuardianReportRow>(
    'GuardianReport',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      student_id: { type: DataTypes.STRING(40), allowNull: false },
      week_start: { type: DataTypes.DATEONLY, allowNull: false },
      summary: { type: DataTypes.JSON, allowNull: false },
      created_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'guardian_reports', timestamps: false },
  );
}
