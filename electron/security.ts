import type { WebPreferences } from 'electron';
import type { GuardedContents } from './electron-api.js';

export type NavigationDecision = 'allow' | 'external' | 'deny';

/**
 * Where a URL the portal window wants to show may go: the portal's own origin stays in the
 * window, other web pages open in the system browser, anything else (file:, data:, javascript:,
 * custom schemes, unparsable text) is refused.
 */
export function decideNavigation(url: string, portalOrigin: string): NavigationDecision {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return 'deny';
  }
  if (target.origin === new URL(portalOrigin).origin) return 'allow';
  if (target.protocol === 'http:' || target.protocol === 'https:') return 'external';
  return 'deny';
}

/** The portal's copy buttons write to the clipboard; every other browser permission is refused. */
const PORTAL_PERMISSIONS = new Set(['clipboard-sanitized-write']);

export function decidePermission(permission: string, requestingUrl: string, portalOrigin: string): boolean {
  return PORTAL_PERMISSIONS.has(permission) && decideNavigation(requestingUrl, portalOrigin) === 'allow';
}

/** The portal page gets no Node.js: an isolated, sandboxed renderer whose only door is the preload bridge. */
export function portalWebPreferences(preload: string, additionalArguments: string[] = []): WebPreferences {
  return {
    preload,
    additionalArguments,
    contextIsolation: true,
    nodeIntegration: false,
    nodeIntegrationInSubFrames: false,
    sandbox: true,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    navigateOnDragDrop: false,
  };
}

/**
 * Applies the navigation rules to a window's contents, and to every window it opens: navigations
 * and redirects leaving the portal are stopped (web pages go to the system browser instead), and
 * `window.open` only opens portal pages.
 */
export function installNavigationGuards(contents: GuardedContents, portalOrigin: string | (() => string), openExternal: (url: string) => void): void {
  // A function when the portal's address is not known yet (the start-up page) or may change (a restart).
  const origin = typeof portalOrigin === 'string' ? () => portalOrigin : portalOrigin;
  const guard = (event: { url: string; preventDefault(): void }) => {
    const decision = decideNavigation(event.url, origin());
    if (decision === 'allow') return;
    event.preventDefault();
    if (decision === 'external') openExternal(event.url);
  };
  contents.on('will-navigate', guard);
  contents.on('will-redirect', guard);
  contents.setWindowOpenHandler(({ url }) => {
    const decision = decideNavigation(url, origin());
    if (decision === 'allow') return { action: 'allow' };
    if (decision === 'external') openExternal(url);
    return { action: 'deny' };
  });
  contents.on('did-create-window', (child) => installNavigationGuards(child.webContents, origin, openExternal));
  contents.session.setPermissionRequestHandler((_contents, permission, callback, details) => {
    callback(decidePermission(permission, details.requestingUrl, origin()));
  });
}
