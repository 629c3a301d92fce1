import { Op } from 'sequelize';
import { AUDIT_RETENTION_DAYS } from '../models/portal-audit.js';
import type { Job } from './job.js';

/** Daily: portal audit entries older than the retention period are deleted. */
export const pruneAuditLogJob: Job = {
  name: 'prune-audit-log',
  schedule: () => '41 3 * * *',
  run: async (ctx) => {
    const cutoff = new Date(Date.now() - AUDIT_RETENTION_DAYS * 24 * 60 * 60 * 1000);
    return {
      audit_entries: await ctx.db.sequelize.transaction((transaction) =>
        ctx.db.models.PortalAuditEntry.destroy({ where: { created_at: { [Op.lt]: cutoff } }, transaction }),
      ),
    };
  },
};
