import { loadJose } from '../../lti/jose.js';
import { Op } from 'sequelize';
import type { Database } from '../../db/index.js';
import { Tenant, type TenantTx } from '../../db/tenant.js';
import { newId, randomToken } from '../../ids.js';
import { outboundRequest } from '../../lti/outbound.js';
import type { LtiPlatformRow, LtiScoreAttemptRow, LtiScorePostRow } from '../../models/lti.js';
import type { SubmissionRow } from '../../models/submission.js';
import { AGS_SCORE_SCOPE } from './claims.js';
import type { OutboundRules } from './platform-keys.js';
import { signingKey, TOOL_KEY_ALG } from './tool-keys.js';

export const SCORE_MEDIA_TYPE = 'application/vnd.ims.lis.v1.score+json';
/** Score posts claimed per run at most; the next run takes the rest. */
const BATCH = 20;
/** A post still `delivering` this long after its claim was orphaned by a crash and is due again. */
const STALE_CLAIM_MS = 2 * 60 * 1000;
/** Kept of the platform's answer per attempt. */
const RESPONSE_BODY_KEPT = 2048;

/**
 * Called by gradeSubmission in the grade's own transaction: for each LTI resource link of the exam
 * with a line item (from a launch's AGS claim) and a known LMS subject for the student, a score
 * post row. The score exists to be sent exactly when the grade does (style pattern 6).
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
      status: 'pending',
      next_attempt_at: now,
      last_attempt_at: null,
      response_status: null,
      error: null,
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

interface CachedToken {
  token: string;
  expiresAt: number;
}
const tokenCaches = new WeakMap<Database, Map<string, CachedToken>>();

/**
 * An AGS access token by the client credentials grant with a signed client assertion (1EdTech
 * Security Framework §4.1; RFC 7523): a JWT of the tool's key, iss and sub the client id, aud the
 * token endpoint. Kept until a minute before it expires.
 */
async function accessToken(
  db: Database,
  platform: LtiPlatformRow,
  rules: OutboundRules,
): Promise<{ token: string } | { error: string; status: number | null; body: string }> {
  let cache = tokenCaches.get(db);
  if (!cache) tokenCaches.set(db, (cache = new Map()));
  const cached = cache.get(platform.id);
  if (cached && cached.expiresAt > Date.now()) return { token: cached.token };
  const { kid, key } = await signingKey(db);
  const { SignJWT } = await loadJose();
  const assertion = await new SignJWT({})
    .setProtectedHeader({ alg: TOOL_KEY_ALG, kid, typ: 'JWT' })
    .setIssuer(platform.client_id)
    .setSubject(platform.client_id)
    .setAudience(platform.token_url)
    .setIssuedAt()
    .setExpirationTime('5m')
    .setJti(randomToken(32))
    .sign(key);
  const result = await outboundRequest({
    method: 'POST',
    url: platform.token_url,
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
      scope: AGS_SCORE_SCOPE,
    }).toString(),
    timeoutMs: rules.timeoutMs,
    privateHosts: rules.privateHosts,
    resolver: rules.resolver,
  });
  if (result.status === null) return { error: `token_${result.error ?? 'error'}`, status: null, body: '' };
  if (result.status < 200 || result.status >= 300) return { error: `token_http_${result.status}`, status: result.status, body: result.body };
  try {
    const answer = JSON.parse(result.body) as { access_token?: unknown; expires_in?: unknown };
    if (typeof answer.access_token !== 'string') throw new Error('no access_token');
    const lifetime = typeof answer.expires_in === 'number' ? answer.expires_in : 3600;
    cache.set(platform.id, { token: answer.access_token, expiresAt: Date.now() + Math.max(0, lifetime - 60) * 1000 });
    return { token: answer.access_token };
  } catch {
    return { error: 'token_invalid_response', status: result.status, body: result.body };
  }
}

interface SendOutcome {
  ok: boolean;
  status: number | null;
  body: string | null;
  error: string | null;
}

async function sendScore(db: Database, post: LtiScorePostRow, rules: OutboundRules): Promise<SendOutcome> {
  const platform = await db.models.LtiPlatform.findByPk(post.platform_id);
  if (!platform) return { ok: false, status: null, body: null, error: 'platform_removed' };
  const token = await accessToken(db, platform, rules);
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
  if (result.status === 401) tokenCaches.get(db)?.delete(platform.id);
  const ok = result.status !== null && result.status >= 200 && result.status < 300;
  return { ok, status: result.status, body: result.body.slice(0, RESPONSE_BODY_KEPT), error: ok ? null : (result.error ?? `http_${result.status}`) };
}

/**
 * Sends the score posts that are due, each claimed by one conditional UPDATE (so two processes
 * never send one), and records every attempt. A failure is retried on the webhooks' schedule
 * (`retrySeconds`, WEBHOOK_RETRY_SCHEDULE); after its last gap the post is `dead`, visible in the portal.
 */
export async function sendDueScores(
  db: Database,
  rules: OutboundRules,
  retrySeconds: readonly number[],
  now = new Date(),
): Promise<{ sent: number; failed: number }> {
  // Claims a crashed process left behind are due again.
  await db.models.LtiScorePost.update(
    { status: 'pending' },
    { where: { status: 'delivering', last_attempt_at: { [Op.lt]: new Date(now.getTime() - STALE_CLAIM_MS) } } },
  );
  const due = await db.models.LtiScorePost.findAll({
    where: { status: 'pending', next_attempt_at: { [Op.lte]: now } },
    order: [['next_attempt_at', 'ASC']],
    limit: BATCH,
  });
  let sent = 0;
  let failed = 0;
  for (const candidate of due) {
    const claimedAt = new Date();
    const [claimed] = await db.models.LtiScorePost.update(
      { status: 'delivering', last_attempt_at: claimedAt },
      // Still the row that was read (same attempt count, still due): a run that read it earlier cannot send it twice.
      { where: { id: candidate.id, status: 'pending', attempt_count: candidate.attempt_count, next_attempt_at: { [Op.lte]: now } } },
    );
    if (claimed !== 1) continue;
    let outcome: SendOutcome;
    try {
      outcome = await sendScore(db, candidate, rules);
    } catch (error) {
      outcome = { ok: false, status: null, body: null, error: `send_error: ${error instanceof Error ? error.message.slice(0, 150) : 'unknown'}` };
    }
    const attempts = candidate.attempt_count + 1;
    const gap = retrySeconds[attempts - 1];
    const status = outcome.ok ? 'succeeded' : gap === undefined ? 'dead' : 'pending';
    await new Tenant(db, candidate.institution_id).inTransaction(async (tx) => {
      await tx.ltiScorePosts.update(
        {
          status,
          attempt_count: attempts,
          last_attempt_at: claimedAt,
          next_attempt_at: status === 'pending' ? new Date(Date.now() + gap! * 1000) : null,
          response_status: outcome.status,
          error: outcome.error?.slice(0, 200) ?? null,
        },
        { id: candidate.id },
      );
      await tx.ltiScoreAttempts.create({
        id: newId('lsa'),
        score_post_id: candidate.id,
        at: claimedAt,
        response_status: outcome.status,
        response_body: outcome.body,
        error: outcome.error?.slice(0, 200) ?? null,
      });
    });
    if (outcome.ok) sent += 1;
    else failed += 1;
  }
  return { sent, failed };
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
export async function retryScorePost(tenant: Tenant, id: string): Promise<boolean> {
  const changed = await tenant.inTransaction((tx) =>
    tx.ltiScorePosts.update({ status: 'pending', next_attempt_at: new Date() }, { id, status: { [Op.in]: ['dead', 'pending'] } }),
  );
  return changed > 0;
}
