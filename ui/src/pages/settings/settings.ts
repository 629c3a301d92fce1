import type { z } from 'zod';
import type { institutionResponse, integrationConfig } from '../../../../server/routes/institution/schema';

/** Types and query keys of the institution's settings pages (server: server/portal/settings.ts). */

/** As GET /v1/institution (type-only import of the server's schema). */
export type InstitutionProfile = z.input<typeof institutionResponse>;

/** As GET/PUT /v1/institution/config: PUT replaces all five fields. */
export type IntegrationConfig = z.input<typeof integrationConfig>;

/** The mail outbox is the portal's own (no /v1 operation), so its types are written here. */

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
