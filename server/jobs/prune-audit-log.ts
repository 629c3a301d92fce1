import { auditCutoff } from '../portal/audit.js';
import type { Job } from './job.js';

/** Daily: portal audit entries older than the retention period are deleted. */
export const pruneAuditLogJob: Job = {
  name: 'prune-audit-log',
  schedule: () => '41 3 * * *',
  run: async (ctx) => ({ audit_entries: await ctx.db.models.PortalAuditEntry.destroy({ where: auditCutoff() }) }),
};
