import type { Database } from '../../db/index.js';
import type { LtiPlatformRow } from '../../models/lti.js';
import { launchUrl } from '../learner/sso.js';

/**
 * The LMS frame (docs/lms.md#inside-the-lms-frame): which origins may frame the tool's pages, and
 * the address a launch opens, which carries everything the page needs without a cookie.
 */

/** `lti_storage_target` of a login initiation: `_parent` or a frame name; anything else is ignored (no Platform Storage). */
const STORAGE_TARGET = /^[A-Za-z0-9_.-]{1,64}$/;

export function storageTargetOf(value: string | undefined): string | null {
  return value && STORAGE_TARGET.test(value) ? value : null;
}

function originOf(url: string): string | null {
  try {
    const { origin, protocol } = new URL(url);
    return protocol === 'https:' || protocol === 'http:' ? origin : null;
  } catch {
    return null;
  }
}

/**
 * The origins that may frame the tool's pages for this platform: its issuer's, its sign-in URL's
 * (where LTI Platform Storage lives), and the ones the school listed (Canvas frames tools from the
 * school's own host, not from `canvas.instructure.com`). Nothing wider: never `*`.
 */
export function platformFrameOrigins(platform: Pick<LtiPlatformRow, 'issuer' | 'auth_url' | 'frame_origins'>): string[] {
  const origins = [platform.issuer, platform.auth_url, ...(platform.frame_origins ?? [])].map(originOf);
  return [...new Set(origins.filter((origin): origin is string => origin !== null))];
}

/** The `frame-ancestors` sources for a page opened by a launch from this platform; 'self' alone when it is unknown. */
export async function frameAncestorsFor(db: Database, platformId: string | undefined): Promise<string[]> {
  const platform = platformId ? await db.models.LtiPlatform.findByPk(platformId, { attributes: ['issuer', 'auth_url', 'frame_origins'] }) : null;
  return ["'self'", ...(platform ? platformFrameOrigins(platform) : [])];
}

/**
 * The learner page's address after a launch: the single-use token (spent by the page, so the
 * session lives in the page, not in a third-party cookie), the platform (so the page may be
 * framed by it), and where the platform keeps LTI Platform Storage when it offers it (the frame,
 * and the sign-in URL's origin, the only one the page posts to).
 */
export function framedLaunchUrl(publicUrl: string, token: string, platform: LtiPlatformRow, storageTarget: string | null): string {
  const url = new URL(launchUrl(publicUrl, token));
  url.searchParams.set('lti', platform.id);
  const storageOrigin = originOf(platform.auth_url);
  if (storageTarget && storageOrigin) {
    url.searchParams.set('lti_storage_target', storageTarget);
    url.searchParams.set('lti_storage_origin', storageOrigin);
  }
  return url.toString();
}
