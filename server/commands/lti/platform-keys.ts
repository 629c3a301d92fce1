import type { CryptoKey, JWK, JWTVerifyGetKey } from 'jose';
import type { Database } from '../../db/index.js';
import { loadJose } from './jose.js';
import { outboundRequest } from './outbound.js';
import type { LtiPlatformRow } from '../../models/lti.js';
import type { Resolver } from '../../outbound/address.js';

/** How the appliance reaches an LMS: the webhooks' address rules and a timeout. */
export interface OutboundRules {
  privateHosts: string;
  timeoutMs: number;
  resolver?: Resolver;
}

/** A platform's key set is kept 10 minutes; an unknown kid refetches it at most once a second. */
const KEY_SET_MAX_AGE_MS = 10 * 60 * 1000;
const REFETCH_COOLDOWN_MS = 1000;

interface CachedKeys {
  source: string;
  getKey: JWTVerifyGetKey;
}

// Per database, so appliances sharing a process (tests) never share a platform's cache.
const caches = new WeakMap<Database, Map<string, CachedKeys>>();

/**
 * The keys that verify a platform's id_tokens. A key set URL goes through jose's remote key set
 * (cached, refetched on an unknown kid), fetched through the appliance's address-checked
 * requester rather than global fetch; a pasted key (PEM or JWK) is that one key, whatever the kid.
 */
function headersOf(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

export async function platformKeys(db: Database, platform: LtiPlatformRow, rules: OutboundRules): Promise<JWTVerifyGetKey> {
  const { createRemoteJWKSet, customFetch, importJWK, importSPKI } = await loadJose();
  if (platform.public_key_pem) {
    const text = platform.public_key_pem.trim();
    const key = (text.startsWith('{') ? await importJWK(JSON.parse(text) as JWK, 'RS256') : await importSPKI(text, 'RS256')) as CryptoKey;
    return () => key;
  }
  // A change of URL or of the address rules starts a fresh cache.
  const source = `${platform.jwks_url ?? ''} ${rules.privateHosts}`;
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  const known = cache.get(platform.id);
  if (known && known.source === source) return known.getKey;
  const getKey = createRemoteJWKSet(new URL(platform.jwks_url ?? ''), {
    cacheMaxAge: KEY_SET_MAX_AGE_MS,
    cooldownDuration: REFETCH_COOLDOWN_MS,
    timeoutDuration: rules.timeoutMs,
    [customFetch]: async (url: string, options: { headers: Headers }) => {
      const result = await outboundRequest({
        method: 'GET',
        url,
        headers: { Accept: 'application/json', ...headersOf(options.headers) },
        timeoutMs: rules.timeoutMs,
        privateHosts: rules.privateHosts,
        resolver: rules.resolver,
      });
      if (result.status === null) throw new Error(`the platform's key set could not be fetched (${result.error})`);
      return new Response(result.body, { status: result.status, headers: { 'Content-Type': 'application/json' } });
    },
  });
  cache.set(platform.id, { source, getKey });
  return getKey;
}
