import { createHash } from 'node:crypto';

/**
 * How every bearer secret is stored: API keys, learner sessions, launch tokens, invitation links,
 * portal sessions and their CSRF tokens. They are long random strings, so a plain SHA-256 is
 * enough (no salt or stretching needed) and lets the lookup be by hash.
 */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
