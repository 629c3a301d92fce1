import type { Database } from '../../db/index.js';
import { randomToken } from '../../ids.js';
import { loadJose } from './jose.js';
import { outboundRequest } from './outbound.js';
import type { LtiPlatformRow } from '../../models/lti.js';
import type { OutboundRules } from './platform-keys.js';
import { signingKey, TOOL_KEY_ALG } from './tool-keys.js';

interface CachedToken {
  token: string;
  expiresAt: number;
}
// Per database, so appliances sharing a process (tests) never share a platform's tokens.
const tokenCaches = new WeakMap<Database, Map<string, CachedToken>>();
const cacheKey = (platform: LtiPlatformRow, scope: string) => `${platform.id} ${scope}`;

/** A token, or why the platform gave none: `error` is a short code (`token_http_401`), `body` the platform's answer. */
export type ServiceToken = { token: string } | { error: string; status: number | null; body: string };

/**
 * An access token for one of the platform's services (AGS scores, NRPS class lists) by the client
 * credentials grant with a signed client assertion (1EdTech Security Framework §4.1; RFC 7523): a
 * JWT of the tool's key, iss and sub the client id, aud the token endpoint. Kept per platform and
 * scope until a minute before it expires.
 */
export async function serviceToken(db: Database, platform: LtiPlatformRow, scope: string, rules: OutboundRules): Promise<ServiceToken> {
  let cache = tokenCaches.get(db);
  if (!cache) tokenCaches.set(db, (cache = new Map()));
  const cached = cache.get(cacheKey(platform, scope));
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
      scope,
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
    cache.set(cacheKey(platform, scope), { token: answer.access_token, expiresAt: Date.now() + Math.max(0, lifetime - 60) * 1000 });
    return { token: answer.access_token };
  } catch {
    return { error: 'token_invalid_response', status: result.status, body: result.body };
  }
}

/** Forgets a token the platform refused (401), so the next request asks for a fresh one. */
export function dropServiceToken(db: Database, platform: LtiPlatformRow, scope: string): void {
  tokenCaches.get(db)?.delete(cacheKey(platform, scope));
}
