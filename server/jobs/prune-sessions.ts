import { Op } from 'sequelize';
import type { Job } from './job.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Daily: launch tokens, learner sessions and portal sessions a day past their expiry are deleted
 * (they can never be used again), and the kept answers of Idempotency-Keys past their 24 hours.
 */
export const pruneSessionsJob: Job = {
  name: 'prune-sessions',
  schedule: () => '23 3 * * *',
  run: async (ctx) => {
    const cutoff = new Date(Date.now() - DAY_MS);
    const { IdempotencyKey, LaunchToken, LearnerSession, PortalSession } = ctx.db.models;
    return ctx.db.sequelize.transaction(async (transaction) => ({
      launch_tokens: await LaunchToken.destroy({ where: { expires_at: { [Op.lt]: cutoff } }, transaction }),
      sessions: await LearnerSession.destroy({ where: { expires_at: { [Op.lt]: cutoff } }, transaction }),
      portal_sessions: await PortalSession.destroy({ where: { expires_at: { [Op.lt]: cutoff } }, transaction }),
      idempotency_keys: await IdempotencyKey.destroy({ where: { expires_at: { [Op.lt]: new Date() } }, transaction }),
    }));
  },
};
