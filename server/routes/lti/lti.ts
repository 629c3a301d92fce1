import { randomBytes } from 'node:crypto';
import express, { type Request, type Response, type Router } from 'express';
import { completeDeepLinking, openDeepLinkingPicker } from '../../commands/lti/deep-linking.js';
import { completeLaunch } from '../../commands/lti/launch.js';
import { beginLogin } from '../../commands/lti/launch-login.js';
import { platformFrameOrigins } from '../../commands/lti/frame.js';
import { completeRegistration } from '../../commands/lti/registration.js';
import { AppError } from '../../errors.js';
import type { OutboundRules } from '../../commands/lti/platform-keys.js';
import { toolKeySet } from '../../commands/lti/tool-keys.js';
import type { AppContext } from '../../context.js';
import { readApplianceSetting } from '../../settings/appliance-settings.js';
import { escapeHtml, htmlPage } from '../../html.js';

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * A page of the LTI flow, shown inside the LMS (often in an iframe): a page with a form may be
 * framed only by its platform's origins (`frameAncestors`, frame.ts); one in words only (a refusal,
 * where the platform may be unknown) by any site, as it offers nothing to click. Its one inline
 * script runs by nonce, and its form may post only to `formTarget`.
 */
function sendPage(
  res: Response,
  title: string,
  body: string,
  options: { formTarget?: string; nonce?: string; status?: number; frameAncestors?: readonly string[] } = {},
): void {
  const formAction = options.formTarget ? `'self' ${new URL(options.formTarget).origin}` : "'self'";
  const frameAncestors = options.frameAncestors ? options.frameAncestors.join(' ') : '*';
  res
    .status(options.status ?? 200)
    .set({
      'Cache-Control': 'no-store',
      'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; script-src ${options.nonce ? `'nonce-${options.nonce}'` : "'none'"}; form-action ${formAction}; frame-ancestors ${frameAncestors}; base-uri 'none'`,
    })
    .removeHeader('X-Frame-Options');
  res.type('html').send(htmlPage(title, body, 'wide'));
}

/**
 * The LTI 1.3 tool's public endpoints (no key: the platform's signed id_token is the credential):
 * `/lti/jwks`, `/lti/login` (GET and POST), `/lti/launch` (form_post) and `/lti/deep-link`.
 * A refused id_token answers `401 LAUNCH_TOKEN_INVALID` in the envelope with the reason.
 */
export function ltiRouter(ctx: AppContext): Router {
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: '256kb' });
  const rules = async (): Promise<OutboundRules> => ({
    privateHosts: await readApplianceSetting(ctx.db, ctx.config, 'outbound_private_hosts'),
    timeoutMs: ctx.config.webhooks.timeoutMs,
  });
  const fields = (req: Request): Record<string, unknown> => ({ ...(req.query as Record<string, unknown>), ...((req.body as Record<string, unknown>) ?? {}) });

  router.get('/lti/jwks', async (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').json(await toolKeySet(ctx.db));
  });

  /**
   * The LMS user's browser (a page in the LMS, often an iframe) gets a refusal as a page in words,
   * with the same status and code; a caller asking for JSON (or naming no preference) gets the
   * envelope, as from every other route.
   */
  const refusalPage = (req: Request, res: Response, error: unknown): boolean => {
    if (!(error instanceof AppError) || error.status >= 500 || req.accepts(['json', 'html']) !== 'html') return false;
    const heading = error.status === 403 ? 'CampusBridge cannot open this for you' : 'CampusBridge could not open this activity';
    sendPage(
      res,
      heading,
      `<h1>${escapeHtml(heading)}</h1>
<p>${escapeHtml(error.message)}</p>
<p style="color:#52606d;font-size:.9rem">Code <code>${escapeHtml(error.code)}</code>. Open the activity again from the LMS; if this page comes back, show it to the school's IT administrator.</p>`,
      { status: error.status },
    );
    return true;
  };
  /** An LTI browser endpoint: a refusal answered as refusalPage says, anything else to the app's error middleware. */
  const forBrowsers =
    (handler: (req: Request, res: Response) => Promise<void>) =>
    async (req: Request, res: Response): Promise<void> => {
      try {
        await handler(req, res);
      } catch (error) {
        if (!refusalPage(req, res, error)) throw error;
      }
    };

  const login = async (req: Request, res: Response) => {
    const input = fields(req);
    const location = await beginLogin(
      ctx.db,
      {
        iss: str(input.iss),
        login_hint: str(input.login_hint),
        target_link_uri: str(input.target_link_uri),
        lti_message_hint: str(input.lti_message_hint),
        client_id: str(input.client_id),
        lti_deployment_id: str(input.lti_deployment_id),
        lti_storage_target: str(input.lti_storage_target),
      },
      await ctx.publicUrl(),
    );
    res.set('Cache-Control', 'no-store').redirect(302, location);
  };
  router.get('/lti/login', forBrowsers(login));
  router.post('/lti/login', form, forBrowsers(login));

  router.post(
    '/lti/launch',
    form,
    forBrowsers(async (req, res) => {
      const input = fields(req);
      const publicUrl = await ctx.publicUrl();
      const outcome = await completeLaunch(ctx.db, str(input.id_token) ?? '', str(input.state) ?? '', await rules(), publicUrl);
      if (outcome.kind === 'redirect') {
        res.set('Cache-Control', 'no-store').redirect(302, outcome.location);
        return;
      }
      const picker = await openDeepLinkingPicker(ctx.db, outcome);
      const choices = picker.exams.length
        ? picker.exams
            .map(
              (exam, index) =>
                `<label><input type="radio" name="exam_id" value="${escapeHtml(exam.id)}"${index === 0 ? ' checked' : ''}> ${escapeHtml(exam.title)}` +
                `${exam.max_score !== null ? ` (out of ${exam.max_score})` : ' (no grade column: the exam has no maximum score)'}</label>`,
            )
            .join('\n')
        : '<p>This school has no open exams yet. Create one in CampusBridge first.</p>';
      sendPage(
        res,
        'Choose an exam',
        `<h1>Choose an exam of ${escapeHtml(picker.institution_name)}</h1>
<form method="post" action="${escapeHtml(`${publicUrl}/lti/deep-link`)}">
<input type="hidden" name="context" value="${escapeHtml(picker.context)}">
${choices}
${picker.exams.length ? '<button type="submit">Add to the course</button>' : ''}
</form>`,
        { frameAncestors: ["'self'", ...platformFrameOrigins(outcome.platform)] },
      );
    }),
  );

  router.post(
    '/lti/deep-link',
    form,
    forBrowsers(async (req, res) => {
      const input = fields(req);
      const response = await completeDeepLinking(ctx.db, str(input.context) ?? '', str(input.exam_id) ?? '', await ctx.publicUrl());
      const nonce = randomBytes(16).toString('base64');
      sendPage(
        res,
        'Returning to the LMS',
        `<h1>Returning to the LMS…</h1>
<form id="return" method="post" action="${escapeHtml(response.return_url)}">
<input type="hidden" name="JWT" value="${escapeHtml(response.jwt)}">
<button type="submit">Continue</button>
</form>
<script nonce="${nonce}">document.getElementById('return').submit();</script>`,
        { formTarget: response.return_url, nonce, frameAncestors: ["'self'", ...platformFrameOrigins(response.platform)] },
      );
    }),
  );

  // LTI Dynamic Registration: the LMS opens the admin's registration URL with openid_configuration (and registration_token).
  router.get('/lti/register', async (req, res) => {
    const input = fields(req);
    try {
      const platform = await completeRegistration(
        ctx.db,
        { token: str(input.token) ?? '', openid_configuration: str(input.openid_configuration) ?? '', registration_token: str(input.registration_token) },
        await rules(),
        await ctx.publicUrl(),
      );
      const nonce = randomBytes(16).toString('base64');
      sendPage(
        res,
        'CampusBridge is registered',
        `<h1>CampusBridge is registered</h1>
<p>This LMS (${escapeHtml(platform.issuer)}, client id ${escapeHtml(platform.client_id)}) can now launch CampusBridge. You may close this window.</p>
<script nonce="${nonce}">(window.opener || window.parent).postMessage({ subject: 'org.imsglobal.lti.close' }, '*');</script>`,
        { nonce },
      );
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const status = error.status >= 400 && error.status < 500 ? error.status : 400;
      sendPage(res, 'Registration failed', `<h1>Registration failed</h1>\n<p>${escapeHtml(error.message)}</p>`, { status });
    }
  });

  // Errors (a rejected handler) reach the app's error middleware: the envelope with LAUNCH_TOKEN_INVALID, validation_error…
  return router;
}
