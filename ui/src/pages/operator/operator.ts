/** Types and query keys of the appliance operator's pages (server: server/portal/operator.ts). */

export type InstitutionStatus = 'pending' | 'approved' | 'suspended';

export interface OperatorInstitution {
  id: string;
  name: string;
  status: InstitutionStatus;
  created_at: string;
}

export interface InstitutionRef {
  id: string;
  name: string;
}

export type BatchStatus = 'pending' | 'approved' | 'rejected';
export const BATCH_STATUSES: readonly BatchStatus[] = ['pending', 'approved', 'rejected'];

export interface OperatorBatch {
  id: string;
  name: string;
  description: string;
  total_coupons: number;
  value_cents: number;
  expiry_date: string;
  status: BatchStatus;
  redeemed_count: number;
  created_at: string;
  decided_at: string | null;
  institution: InstitutionRef;
}

export interface OperatorAllowance {
  institution: OperatorInstitution;
  total_cents: number;
  used_cents: number;
  remaining_cents: number;
}

export interface OperatorCurriculum {
  id: string;
  name: string;
  description: string;
  status: 'draft' | 'published';
  scope: 'institution' | 'shared';
  concepts: Array<{ id: string; name: string }>;
  /** Null for a curriculum shared by every institution. */
  institution: InstitutionRef | null;
  created_at: string;
}

export interface SmtpSettings {
  host: string;
  port: number;
  secure: boolean;
  user: string | null;
  from: string;
  password_set: boolean;
  updated_at: string;
}

export interface TestMailResult {
  mail_id: string;
  to: string;
  status: 'sent' | 'failed' | 'queued';
  error: string | null;
}

export const operatorKey = (area: 'institutions' | 'coupon-batches' | 'allowances' | 'curricula' | 'smtp') => ['operator', area] as const;

/** Amounts are whole cents of no stated currency (the API's unit), shown grouped: 1,250,000. */
export const formatCents = (cents: number) => cents.toLocaleString();
