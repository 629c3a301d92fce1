import { randomBytes } from 'node:crypto';
import type { Response } from 'express';
import { completeDeepLinking, openDeepLinkingPicker } from '../../commands/lti/deep-linking.js';
import { completeLaunch } from '../../commands/lti/launch.js';
import { beginLogin } from '../../commands/lti/launch-login.js';
import { platformFrameOrigins } from '../../commands/lti/frame.js';
import { completeRegistration } from '../../commands/lti/registration.js';
import type { AppError } from '../../errors.js';
import type { OutboundRules } from '../../commands/lti/platform-keys.js';
import { toolKeySet } from '../../commands/lti/tool-keys.js';
import type { AppContext } from '../../context.js';
import { readApplianceSetting } from '../../settings/appliance-settings.js';
import { escapeHtml, htmlPage } from '../../html.js';
import { defineRoute, RawResponse, type AnyRoute } from '../../http/route.js';
import { z } from '../../validation/zod.js';
import { anyQuery, htmlAnswer, loginFields, type LoginFields } from './schema.js';

/**
 * A page of the LTI flow, shown inside the LMS (often in an iframe): a page with a form may be
 * framed only by its platform's origins (`frameAncestors`, frame.ts); one in words only (a refusal,
 * where the platform may be unknown) by any site, as it offers nothing to click. Its one inline
 * script runs by nonce, and its form may post only to `formTarget`.
 */
function ltiPage(
  title: string,
  body: string,
  options: { formTarget?: string; nonce?: string; status?: number; frameAncestors?: readonly string[] } = {},
): RawResponse {
  const formAction = options.formTarget ? `'self' ${new URL(options.formTarget).origin}` : "'self'";
  const frameAncestors = options.frameAncestors ? options.frameAncestors.join(' ') : '*';
  return new RawResponse((res: Response) => {
    res
      .status(options.status ?? 200)
      .set({
        'Cache-Control': 'no-store',
        'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; script-src ${options.nonce ? `'nonce-${options.nonce}'` : "'none'"}; form-action ${formAction}; frame-ancestors ${frameAncestors}; base-uri 'none'`,
      })
      .removeHeader('X-Frame-Options');
    res.type('html').send(htmlPage(title, body, 'wide'));
  });
}

const redirect = (location: string) => new RawResponse((res) => res.set('Cache-Control', 'no-store').redirect(302, location));

/**
 * The LMS user's browser (a page in the LMS, often an iframe) gets a refusal as a page in words,
 * with the same status and code; a caller asking for JSON (or naming no preference) gets the
 * envelope, as from every other route.
 */
function refusalInWords(error: AppError, wantsHtml: boolean): RawResponse | null {
  if (!wantsHtml || error.status >= 500) return null;
  const heading = error.status === 403 ? 'CampusBridge cannot open this for you' : 'CampusBridge could not open this activity';
  return ltiPage(
    heading,
    `<h1>${escapeHtml(heading)}</h1>
<p>${escapeHtml(error.message)}</p>
<p style="color:#52606d;font-size:.9rem">Code <code>${escapeHtml(error.code)}</code>. Open the activity again from the LMS; if this page comes back, show it to the school's IT administrator.</p>`,
    { status: error.status },
  );
}

const rulesOf = async (ctx: AppContext): Promise<OutboundRules> => ({
  privateHosts: await readApplianceSetting(ctx.db, ctx.config, 'outbound_private_hosts'),
  timeoutMs: ctx.config.webhooks.timeoutMs,
});

async function login(ctx: AppContext, fields: LoginFields): Promise<RawResponse> {
  const { iss, login_hint, target_link_uri, lti_message_hint, client_id, lti_deployment_id, lti_storage_target } = fields;
  const location = await beginLogin(
    ctx.db,
    { iss, login_hint, target_link_uri, lti_message_hint, client_id, lti_deployment_id, lti_storage_target },
    await ctx.publicUrl(),
  );
  return redirect(location);
}

/** The deep-linking picker: the school's open exams, one to add to the course. */
async function pickerPage(ctx: AppContext, outcome: Exclude<Awaited<ReturnType<typeof completeLaunch>>, { kind: 'redirect' }>): Promise<RawResponse> {
  const picker = await openDeepLinkingPicker(ctx.db, outcome);
  const publicUrl = await ctx.publicUrl();
  const choices = picker.exams.length
    ? picker.exams
        .map(
          (exam, index) =>
            `<label><input type="radio" name="exam_id" value="${escapeHtml(exam.id)}"${index === 0 ? ' checked' : ''}> ${escapeHtml(exam.title)}` +
            `${exam.max_score !== null ? ` (out of ${exam.max_score})` : ' (no grade column: the exam has no maximum score)'}</label>`,
        )
        .join('\n')
    : '<p>This school has no open exams yet. Create one in CampusBridge first.</p>';
  return ltiPage(
    'Choose an exam',
    `<h1>Choose an exam of ${escapeHtml(picker.institution_name)}</h1>
<form method="post" action="${escapeHtml(`${publicUrl}/lti/deep-link`)}">
<input type="hidden" name="context" value="${escapeHtml(picker.context)}">
${choices}
${picker.exams.length ? '<button type="submit">Add to the course</button>' : ''}
</form>`,
    { frameAncestors: ["'self'", ...platformFrameOrigins(outcome.platform)] },
  );
}

/**
 * The LTI 1.3 tool's public endpoints (no key: the platform's signed id_token is the credential):
 * `/lti/jwks`, `/lti/login` (GET and POST), `/lti/launch` (form_post), `/lti/deep-link` and
 * `/lti/register`. A refused id_token answers `401 LAUNCH_TOKEN_INVALID` in the envelope with the
 * reason, or as a page in words to a browser (docs/lms.md#lti-13).
 */
export const ltiPageRoutes: AnyRoute[] = [
  defineRoute({
    caller: 'anyone',
    method: 'get',
    path: '/lti/jwks',
    operationId: 'ltiToolKeySet',
    summary: "The tool's public signing keys (JWKS)",
    tag: 'LTI',
    query: anyQuery,
    produces: 'application/json',
    response: z.unknown(),
    handler: async ({ ctx }) => {
      const keys = await toolKeySet(ctx.db);
      return new RawResponse((res) => {
        res.set('Cache-Control', 'public, max-age=300').json(keys);
      });
    },
  }),
  defineRoute({
    caller: 'anyone',
    method: 'get',
    path: '/lti/login',
    operationId: 'ltiLogin',
    summary: 'OIDC login initiation (the LMS redirects the browser here)',
    tag: 'LTI',
    query: loginFields,
    produces: 'text/html',
    response: htmlAnswer,
    refusalPage: refusalInWords,
    handler: ({ ctx, query }) => login(ctx, query),
  }),
  defineRoute({
    caller: 'anyone',
    method: 'post',
    path: '/lti/login',
    operationId: 'ltiLoginForm',
    summary: 'OIDC login initiation, posted as a form',
    tag: 'LTI',
    form: true,
    query: loginFields,
    body: loginFields,
    produces: 'text/html',
    response: htmlAnswer,
    refusalPage: refusalInWords,
    handler: ({ ctx, query, body }) => login(ctx, { ...query, ...body }),
  }),
  defineRoute({
    caller: 'anyone',
    method: 'post',
    path: '/lti/launch',
    operationId: 'ltiLaunch',
    summary: "The platform's id_token (form_post): the learner page, or the deep-linking picker",
    tag: 'LTI',
    form: true,
    query: anyQuery,
    body: z.looseObject({ id_token: z.string().optional(), state: z.string().optional() }),
    produces: 'text/html',
    response: htmlAnswer,
    errors: ['LAUNCH_TOKEN_INVALID'],
    refusalPage: refusalInWords,
    handler: async ({ ctx, body }) => {
      const outcome = await completeLaunch(ctx.db, body.id_token ?? '', body.state ?? '', await rulesOf(ctx), await ctx.publicUrl());
      return outcome.kind === 'redirect' ? redirect(outcome.location) : pickerPage(ctx, outcome);
    },
  }),
  defineRoute({
    caller: 'anyone',
    method: 'post',
    path: '/lti/deep-link',
    operationId: 'ltiDeepLink',
    summary: 'The chosen exam, returned to the LMS as a signed deep-linking response',
    tag: 'LTI',
    form: true,
    query: anyQuery,
    body: z.looseObject({ context: z.string().optional(), exam_id: z.string().optional() }),
    produces: 'text/html',
    response: htmlAnswer,
    refusalPage: refusalInWords,
    handler: async ({ ctx, body }) => {
      const response = await completeDeepLinking(ctx.db, body.context ?? '', body.exam_id ?? '', await ctx.publicUrl());
      const nonce = randomBytes(16).toString('base64');
      return ltiPage(
        'Returning to the LMS',
        `<h1>Returning to the LMS…</h1>
<form id="return" method="post" action="${escapeHtml(response.return_url)}">
<input type="hidden" name="JWT" value="${escapeHtml(response.jwt)}">
<button type="submit">Continue</button>
</form>
<script nonce="${nonce}">document.getElementById('return').submit();</script>`,
        { formTarget: response.return_url, nonce, frameAncestors: ["'self'", ...platformFrameOrigins(response.platform)] },
      );
    },
  }),
  // LTI Dynamic Registration: the LMS opens the admin's registration URL with openid_configuration (and registration_token).
  defineRoute({
    caller: 'anyone',
    method: 'get',
    path: '/lti/register',
    operationId: 'ltiRegister',
    summary: 'LTI Dynamic Registration, opened by the LMS with the registration link the admin made',
    tag: 'LTI',
    query: z.looseObject({ token: z.string().optional(), openid_configuration: z.string().optional(), registration_token: z.string().optional() }),
    produces: 'text/html',
    response: htmlAnswer,
    // The LMS shows this page to its admin, whatever the browser says it accepts.
    refusalPage: (error) =>
      ltiPage('Registration failed', `<h1>Registration failed</h1>\n<p>${escapeHtml(error.message)}</p>`, {
        status: error.status >= 400 && error.status < 500 ? error.status : 400,
      }),
    handler: async ({ ctx, query }) => {
      const platform = await completeRegistration(
        ctx.db,
        { token: query.token ?? '', openid_configuration: query.openid_configuration ?? '', registration_token: query.registration_token },
        await rulesOf(ctx),
        await ctx.publicUrl(),
      );
      const nonce = randomBytes(16).toString('base64');
      return ltiPage(
        'CampusBridge is registered',
        `<h1>CampusBridge is registered</h1>
<p>This LMS (${escapeHtml(platform.issuer)}, client id ${escapeHtml(platform.client_id)}) can now launch CampusBridge. You may close this window.</p>
<script nonce="${nonce}">(window.opener || window.parent).postMessage({ subject: 'org.imsglobal.lti.close' }, '*');</script>`,
        { nonce },
      );
    },
  }),
];
