/** Types and query keys of the institution's settings pages (server: server/portal/settings.ts). */

export interface InstitutionProfile {
  id: string;
  name: string;
  status: 'pending' | 'approved' | 'suspended';
  created_at: string;
  counts: { students: number; faculty: number; groups: number; exams: number; active_licenses: number };
}

/** As GET/PUT /v1/institution/config: PUT replaces all five fields. */
export interface IntegrationConfig {
  default_ai_policy: { allowed?: boolean; model_tier?: string; max_interactions?: number };
  default_proctoring: { camera?: boolean; screen?: boolean };
  allowed_toolchains: string[];
  toolchain_mirror: Record<string, unknown> | null;
  lms: Record<string, unknown>;
}

export type MailStatus = 'queued' | 'sent' | 'failed' | 'expired';
export const MAIL_STATUSES: readonly MailStatus[] = ['queued', 'sent', 'failed', 'expired'];

export interface OutboxMail {
  id: string;
  /** Masked by the server: `a•••@example.org`. */
  to: string;
  subject: string;
  kind: string;
  status: MailStatus;
  attempts: number;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  sent_at: string | null;
}

export interface OutboxPage {
  items: OutboxMail[];
  next_cursor: string | null;
}

export const settingsKey = (institutionId: string) => ['institution', institutionId, 'settings'] as const;
export const configKey = (institutionId: string) => ['institution', institutionId, 'settings', 'config'] as const;
export const outboxKey = (institutionId: string) => ['institution', institutionId, 'outbox'] as const;
