/** What the window says while the server starts, and when it could not. */
export type StartStatus = { step: 'starting' | 'database' | 'server' | 'restarting' } | { step: 'failed'; message: string };

const TEXT: Record<Exclude<StartStatus['step'], 'failed'>, string> = {
  starting: 'Starting CampusBridge…',
  database: 'Opening the database (and upgrading it after an update)…',
  server: 'Starting the server…',
  restarting: 'Restarting the server with the new network setting…',
};

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** The sentence shown for a status. */
export function statusText(status: StartStatus): string {
  return status.step === 'failed' ? `CampusBridge could not start. ${status.message}` : TEXT[status.step];
}

/**
 * A small self-contained page (no script, no network) shown in the window before the portal is
 * there, as a data: URL so it needs no server and no file in the app bundle.
 */
export function loadingPageUrl(status: StartStatus): string {
  const failed = status.step === 'failed';
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>CampusBridge</title>
<style>body{font-family:system-ui,sans-serif;display:flex;align-items:center;justify-content:center;height:100vh;margin:0;color:#1a1b1e;background:#f8f9fa}
main{max-width:36rem;padding:2rem;text-align:center}p{white-space:pre-wrap;line-height:1.5}.failed{color:#c92a2a}</style></head>
<body><main><h1>CampusBridge</h1><p class="${failed ? 'failed' : 'status'}" role="status">${escapeHtml(statusText(status))}</p></main></body></html>`;
  return `data:text/html;charset=utf-8,${encodeURIComponent(html)}`;
}
