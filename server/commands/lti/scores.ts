import { Op } from 'sequelize';
import type { Database } from '../../db/index.js';
import type { Tenant, TenantTx } from '../../db/tenant.js';
import { newId } from '../../ids.js';
import { outboundRequest } from './outbound.js';
import { freshPost, replayPost, RESPONSE_BODY_KEPT, sendDuePosts, type OutboundQueue, type SendOutcome } from '../lms/outbound-posts.js';
import type { LtiScoreAttemptRow, LtiScorePostRow } from '../../models/lti-score.js';
import type { SubmissionRow } from '../../models/submission.js';
import { AGS_SCORE_SCOPE } from './claims.js';
import type { OutboundRules } from './platform-keys.js';
import { dropServiceToken, serviceToken } from './service-token.js';

export const SCORE_MEDIA_TYPE = 'application/vnd.ims.lis.v1.score+json';

/**
 * Called by gradeSubmission in the grade's own transaction: for each LTI resource link of the exam
 * with a line item (from a launch's AGS claim) and a known LMS subject for the student, a score
 * post row. The score exists to be sent exactly when the grade does: a post is a row before it is a request.
 */
export async function enqueueLtiScores(tx: TenantTx, submission: SubmissionRow, maxScore: number | null, now = new Date()): Promise<number> {
  if (maxScore === null || submission.score === null) return 0;
  const links = await tx.ltiResourceLinks.findAll({ where: { exam_id: submission.exam_id, line_item_url: { [Op.ne]: null } } });
  let queued = 0;
  for (const link of links) {
    const subject = await tx.ltiSubjects.findOne({ where: { platform_id: link.platform_id, person_id: submission.student_id } });
    if (!subject) continue;
    await tx.ltiScorePosts.create({
      id: newId('lsp'),
      platform_id: link.platform_id,
      submission_id: submission.id,
      line_item_url: link.line_item_url!,
      payload: {
        userId: subject.subject,
        scoreGiven: Number(submission.score),
        scoreMaximum: maxScore,
        timestamp: (submission.graded_at ?? now).toISOString(),
        activityProgress: 'Completed',
        gradingProgress: 'FullyGraded',
      },
      ...freshPost(now),
    });
    queued += 1;
  }
  return queued;
}

/** `{line item}/scores`, keeping the line item URL's query (AGS 2.0 §3.4). */
export function scoresUrl(lineItem: string): string {
  const url = new URL(lineItem);
  url.pathname = `${url.pathname.replace(/\/$/, '')}/scores`;
  return url.toString();
}

async function sendScore(db: Database, post: LtiScorePostRow, rules: OutboundRules): Promise<SendOutcome> {
  const platform = await db.models.LtiPlatform.findByPk(post.platform_id);
  if (!platform) return { ok: false, status: null, body: null, error: 'platform_removed' };
  const token = await serviceToken(db, platform, AGS_SCORE_SCOPE, rules);
  if ('error' in token) return { ok: false, status: token.status, body: token.body.slice(0, RESPONSE_BODY_KEPT), error: token.error };
  const result = await outboundRequest({
    method: 'POST',
    url: scoresUrl(post.line_item_url),
    headers: { 'Content-Type': SCORE_MEDIA_TYPE, Authorization: `Bearer ${token.token}` },
    body: JSON.stringify(post.payload),
    timeoutMs: rules.timeoutMs,
    privateHosts: rules.privateHosts,
    resolver: rules.resolver,
  });
  // A refused token is dropped so the next attempt asks for a fresh one.
  if (result.status === 401) dropServiceToken(db, platform, AGS_SCORE_SCOPE);
  const ok = result.status !== null && result.status >= 200 && result.status < 300;
  return { ok, status: result.status, body: result.body.slice(0, RESPONSE_BODY_KEPT), error: ok ? null : (result.error ?? `http_${result.status}`) };
}

/** The score posts' queue: the claim, retries and replay are those of every outbound queue (outbound-posts.ts). */
const scoreQueue = (db: Database, rules: OutboundRules): OutboundQueue<LtiScorePostRow, SendOutcome> => ({
  model: db.models.LtiScorePost,
  rows: (tx) => tx.ltiScorePosts,
  send: (post) => sendScore(db, post, rules),
  recordAttempt: (tx, post, at, outcome) =>
    tx.ltiScoreAttempts.create({
      id: newId('lsa'),
      score_post_id: post.id,
      at,
      response_status: outcome.status,
      response_body: outcome.body,
      error: outcome.error?.slice(0, 200) ?? null,
    }),
});

/**
 * Sends the score posts that are due, each claimed once, every attempt recorded. A failure is
 * retried on the webhooks' schedule (`retrySeconds`, WEBHOOK_RETRY_SCHEDULE); after its last gap
 * the post is `dead`, visible in the portal.
 */
export function sendDueScores(
  db: Database,
  rules: OutboundRules,
  retrySeconds: readonly number[],
  now = new Date(),
): Promise<{ sent: number; failed: number }> {
  return sendDuePosts(scoreQueue(db, rules), db, retrySeconds, now);
}

export interface ScorePostWithAttempts {
  post: LtiScorePostRow;
  attempts: LtiScoreAttemptRow[];
}

/** The newest score posts of the institution with their attempts, for the portal. */
export async function listScorePosts(tenant: Tenant, limit = 100): Promise<ScorePostWithAttempts[]> {
  const posts = await tenant.ltiScorePosts.findAll({ order: [['created_at', 'DESC']], limit });
  if (posts.length === 0) return [];
  const attempts = await tenant.ltiScoreAttempts.findAll({ where: { score_post_id: { [Op.in]: posts.map((post) => post.id) } }, order: [['at', 'ASC']] });
  return posts.map((post) => ({ post, attempts: attempts.filter((attempt) => attempt.score_post_id === post.id) }));
}

/** A dead or failed post tried again now. */
export function retryScorePost(tenant: Tenant, id: string): Promise<boolean> {
  return replayPost(tenant, (tx) => tx.ltiScorePosts, id);
}
