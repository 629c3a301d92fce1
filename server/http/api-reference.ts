import express, { type RequestHandler, type Router } from 'express';
import type { OpenApiDocument } from './openapi.js';

/**
 * Swagger UI's colours darkened to WCAG AA contrast (4.5:1) for their text: the method badges,
 * the version stamps, the Authorize, Execute and Cancel buttons, "Expand all"; and the one-entry
 * server picker left out (it has no label, and there is nothing to pick). Checked by axe in
 * tests/e2e/explorer.test.ts.
 */
const ACCESSIBLE_CSS = `
.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1f5fa8; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #1a7048; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #9a4a00; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #0f6b5e; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #b3261e; }
.swagger-ui .opblock.opblock-head .opblock-summary-method, .swagger-ui .opblock.opblock-options .opblock-summary-method { background: #5a3d8a; }
.swagger-ui .info .title small { background: #4a4f5a; }
.swagger-ui .info .title small.version-stamp { background: #3d6b00; }
.swagger-ui .btn.authorize { color: #1a7048; border-color: #1a7048; }
.swagger-ui .btn.authorize svg { fill: #1a7048; }
.swagger-ui .scheme-container .schemes-server-container { display: none !important; }
.swagger-ui .btn.execute { background: #1f5fa8; border-color: #1f5fa8; }
.swagger-ui .btn.cancel { color: #b3261e; border-color: #b3261e; }
.swagger-ui .json-schema-2020-12-expand-deep-button { color: #4a4f5a; }
`;

/** What the two browser-side functions below use of the page (the server is compiled without the DOM's types). */
interface ReaderPage {
  confirm(message: string): boolean;
  document: { body: unknown; querySelectorAll(selector: string): ArrayLike<{ setAttribute(name: string, value: string): void }> };
  MutationObserver: new (callback: () => void) => { observe(target: unknown, options: { childList: boolean; subtree: boolean }): void };
}

/**
 * A Swagger UI plugin, run in the reader's browser (serialized into the page's script, so it
 * stands alone): names the dialog's close button, and gives the dialog's Authorize button a name
 * that holds its visible word, each time Swagger UI draws them.
 */
function accessibleNames() {
  return {
    afterLoad() {
      const page = globalThis as unknown as ReaderPage;
      const name = () => {
        for (const button of Array.from(page.document.querySelectorAll('.close-modal'))) button.setAttribute('aria-label', 'Close');
        for (const button of Array.from(page.document.querySelectorAll('.auth-btn-wrapper .authorize')))
          button.setAttribute('aria-label', 'Authorize: apply credentials');
      };
      new page.MutationObserver(name).observe(page.document.body, { childList: true, subtree: true });
    },
  };
}

/**
 * Swagger UI's request interceptor, run in the reader's browser (serialized into the page's script,
 * so it must stand alone): a change sent with a live key (`cb_live_…`) is sent only after the reader
 * says yes; reads, and anything sent with a sandbox key, go as they are. Refused, nothing is sent.
 */
function askBeforeLiveChanges(request: { method?: string; url: string; headers?: Record<string, string> }) {
  const auth = request.headers?.Authorization ?? request.headers?.authorization ?? '';
  const reading = /^(GET|HEAD|OPTIONS)$/i.test(request.method ?? 'GET');
  if (reading || !/^Bearer\s+cb_live_/.test(auth)) return request;
  const ask = `${(request.method ?? '').toUpperCase()} ${request.url}\n\nThis is a live key: the request changes your institution's real data (students, exams, webhooks). Send it?\n\nCancel, and authorize with a sandbox key (cb_test_…) to try changes safely.`;
  if ((globalThis as unknown as ReaderPage).confirm(ask)) return request;
  throw new Error('Not sent: a change with a live key was cancelled. Authorize with a sandbox key (cb_test_…) to try it safely.');
}

/**
 * The interactive reference (Swagger UI) for a document, loaded and rendered at its first
 * request: the library and the rendered page (the document inlined, megabytes) stay out of an
 * appliance's memory until someone opens it.
 */
export function apiReferencePage(document: () => OpenApiDocument, title: string): RequestHandler {
  let page: Promise<Router> | undefined;
  const render = async () => {
    const { default: swaggerUi } = await import('swagger-ui-express');
    const router = express.Router();
    // The page's script is built from `swaggerOptions` given to serveFiles; setup writes the HTML around it.
    const options = {
      customSiteTitle: title,
      customCss: ACCESSIBLE_CSS,
      swaggerOptions: {
        validatorUrl: null,
        persistAuthorization: false,
        // Deep links put an <a> inside each operation's toggle button: two controls in one.
        deepLinking: false,
        requestInterceptor: askBeforeLiveChanges,
        plugins: [accessibleNames],
      },
    };
    router.use(swaggerUi.serveFiles(document(), options), swaggerUi.setup(document(), options));
    return router;
  };
  return (req, res, next) => {
    page ??= render().catch((error: unknown) => {
      page = undefined; // the next request tries again
      throw error;
    });
    page.then((router) => router(req, res, next), next);
  };
}
