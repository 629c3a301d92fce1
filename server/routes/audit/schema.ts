import { pageOf, pageQuery } from '../../validation/schemas.js';
import { sortQuery } from '../../validation/sort.js';
import { z } from '../../validation/zod.js';

/** One change made in the portal, as the audit pages list it. */
export const auditEntrySchema = z.object({
  id: z.string(),
  institution_id: z.string().nullable(),
  occurred_at: z.string(),
  actor_email: z.string(),
  action: z.string(),
  description: z.string(),
  target: z.record(z.string(), z.string()),
  ip: z.string().nullable(),
  request_id: z.string(),
});

/** A page of audit entries, as both audit logs answer it. */
export const auditPage = pageOf(auditEntrySchema);

/** The institution whose audit log is read. */
export const institutionAuditParams = z.strictObject({ id: z.string().min(1).max(40) });

/** Both logs sort on the time of the change only. */
const auditSort = sortQuery(['occurred_at'], 'newest first (`-occurred_at`)');

/** An institution's log: its order and page. */
export const auditQuery = z.strictObject({ sort: auditSort, ...pageQuery });

/** The appliance's log: optionally one institution's entries, its order and page. */
export const operatorAuditQuery = z.strictObject({ institution_id: z.string().min(1).max(40).optional(), sort: auditSort, ...pageQuery });
