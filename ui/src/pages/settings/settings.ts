import type { z } from 'zod';
import type { outboxItemSchema, outboxPageSchema } from '../../../../server/routes/outbox/schema';
import type { institutionResponse, integrationConfig } from '../../../../server/routes/institution/schema';

/** Types and query keys of the institution's settings pages (server: server/routes/outbox/outbox.ts). */

/** As GET /v1/institution (type-only import of the server's schema). */
export type InstitutionProfile = z.input<typeof institutionResponse>;

/** As GET/PUT /v1/institution/config: PUT replaces all five fields. */
export type IntegrationConfig = z.input<typeof integrationConfig>;

/** As GET /portal/api/institutions/{id}/outbox, the portal's own operation (type-only imports of server/routes/outbox/outbox.ts). */
export type OutboxPage = z.input<typeof outboxPageSchema>;
/** `to` is masked by the server: `a•••@example.org`. */
export type OutboxMail = z.input<typeof outboxItemSchema>;

export type MailStatus = OutboxMail['status'];
export type MailDropReason = NonNullable<OutboxMail['dropped_reason']>;
/** The status filter's choices; a runtime list, so written here and typed by the server's statuses. */
export const MAIL_STATUSES: readonly MailStatus[] = ['queued', 'sent', 'failed', 'dropped'];

export const settingsKey = (institutionId: string) => ['institution', institutionId, 'settings'] as const;
export const configKey = (institutionId: string) => ['institution', institutionId, 'settings', 'config'] as const;
export const outboxKey = (institutionId: string) => ['institution', institutionId, 'outbox'] as const;
