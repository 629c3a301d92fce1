// HTML the appliance writes itself, outside the React portal: the pages a link or an LMS opens
// (a guardian's confirmation, the LTI flow) and the HTML part of mail.

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe to place in HTML content or a quoted attribute. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]!);
}

/** `narrow`: a card of words (a confirmation); `wide`: room for a form (the LTI exam picker). */
export type PageWidth = 'narrow' | 'wide';

/**
 * A complete page with no external asset: `title` is text (escaped here), `body` is HTML the caller
 * built with escapeHtml. Styles are inline, so a Content-Security-Policy of `style-src
 * 'unsafe-inline'` and no script source shows it.
 */
export function htmlPage(title: string, body: string, width: PageWidth = 'narrow'): string {
  const main = width === 'wide' ? 'max-width: 40rem; margin: 4vh auto' : 'max-width: 32rem; margin: 12vh auto';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; background: #f4f5f7; color: #1f2933; }
main { ${main}; padding: 2rem; background: #fff; border-radius: 12px; box-shadow: 0 1px 4px rgba(0,0,0,.08); }
h1 { font-size: 1.4rem; margin: 0 0 1rem; }
p { margin: 0 0 .75rem; }
label { display: block; padding: .5rem; border-radius: 8px; } label:hover { background: #eef2f7; }
button { margin-top: 1rem; font: inherit; padding: .5rem 1.25rem; border: 0; border-radius: 8px; background: #1c7ed6; color: #fff; cursor: pointer; }
</style>
</head>
<body>
<main>${body}</main>
</body>
</html>
`;
}

/** A page of a heading and paragraphs, all text. */
export function textPage(title: string, paragraphs: string[]): string {
  return htmlPage(title, `\n<h1>${escapeHtml(title)}</h1>\n${paragraphs.map((text) => `<p>${escapeHtml(text)}</p>`).join('\n')}\n`);
}
