import { platformFrameOrigins } from '../commands/lti/frame.js';
import { membersRunResult } from '../commands/lti/nrps.js';
import type { LtiOverview } from '../commands/lti/overview.js';
import type { ScorePostWithAttempts } from '../commands/lti/scores.js';
import type { LtiPlatformRow } from '../models/lti.js';
import type { LtiResourceLinkRow } from '../models/lti-launch.js';

/** A registered platform: every field but the pasted key itself (only whether there is one). */
export function presentPlatform(row: LtiPlatformRow) {
  return {
    id: row.id,
    name: row.name,
    issuer: row.issuer,
    client_id: row.client_id,
    deployment_ids: row.deployment_ids,
    auth_url: row.auth_url,
    token_url: row.token_url,
    jwks_url: row.jwks_url,
    has_public_key: row.public_key_pem !== null,
    provision_users: row.provision_users,
    frame_origins: platformFrameOrigins(row),
    listed_frame_origins: row.frame_origins ?? [],
    created_at: row.created_at.toISOString(),
  };
}

export function presentResourceLink(row: LtiResourceLinkRow) {
  return {
    id: row.id,
    platform_id: row.platform_id,
    resource_link_id: row.resource_link_id,
    exam_id: row.exam_id,
    title: row.title,
    line_item_url: row.line_item_url,
    // A row just created on SQLite holds only the columns it was given.
    has_class_list: Boolean(row.memberships_url),
    members_group_id: row.members_group_id ?? null,
    created_at: row.created_at.toISOString(),
  };
}

/** A score post as the portal lists it, with each attempt (the platform's answer kept to 2 KB). */
export function presentScorePost({ post, attempts }: ScorePostWithAttempts) {
  return {
    id: post.id,
    platform_id: post.platform_id,
    submission_id: post.submission_id,
    line_item_url: post.line_item_url,
    payload: post.payload,
    status: post.status,
    attempt_count: post.attempt_count,
    next_attempt_at: post.next_attempt_at ? post.next_attempt_at.toISOString() : null,
    last_attempt_at: post.last_attempt_at ? post.last_attempt_at.toISOString() : null,
    response_status: post.response_status,
    error: post.error,
    created_at: post.created_at.toISOString(),
    attempts: attempts.map((attempt) => ({
      at: attempt.at.toISOString(),
      response_status: attempt.response_status,
      response_body: attempt.response_body,
      error: attempt.error,
    })),
  };
}

/** The portal's LTI page: the tool's side, the platforms, and each link with its newest class list sync (null: none yet). */
export function presentLtiOverview({ tool, platforms, links, lastSyncs }: LtiOverview) {
  return {
    tool: { ...tool, public_jwk: { ...tool.public_jwk } },
    platforms: platforms.map(presentPlatform),
    links: links.map((link) => {
      const last = lastSyncs.get(link.id);
      return { ...presentResourceLink(link), last_members_sync: last ? membersRunResult(last) : null };
    }),
  };
}
