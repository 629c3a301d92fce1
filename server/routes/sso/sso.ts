import { exchangeLaunchToken, launchUrl, mintLaunchToken } from '../../commands/learner/sso.js';
import { defineRoute, type ApiRoute } from '../../http/route.js';
import { presentLearnerUser } from '../../presenters/learner.js';
import { exchangeBody, launchSchema, mintLaunchBody, sessionSchema } from './schema.js';

export const ssoRoutes: ApiRoute[] = [
  defineRoute({
    caller: 'key',
    method: 'post',
    path: '/sso/tokens',
    operationId: 'createLaunchToken',
    summary: 'Mint a single-use launch token',
    description:
      'Mint one token per click: it signs the user into the app once, within `ttl_seconds` (default 60, at most 300). ' +
      'Unknown login email: `404 user_not_found`. Suspended user, or license revoked or expired: `409 user_inactive`.',
    tag: 'SSO',
    scope: 'sso:write',
    body: mintLaunchBody,
    response: launchSchema,
    errors: ['user_not_found', 'user_inactive'],
    handler: async ({ tenant, body, ctx }) => {
      const minted = await mintLaunchToken(tenant, body);
      return { launch_url: launchUrl(await ctx.publicUrl(), minted.token), expires_at: minted.expires_at.toISOString() };
    },
  }),
  defineRoute({
    caller: 'anyone',
    method: 'post',
    path: '/sso/exchange',
    operationId: 'exchangeLaunchToken',
    summary: 'Exchange a launch token for a learner session',
    description:
      'Called by the learner page at `/launch` (or an app) with the token of a launch URL. A used, expired or unknown token is `401 LAUNCH_TOKEN_INVALID`; ' +
      'of several concurrent exchanges of one token exactly one succeeds. The user must still be active with an active license (`409 user_inactive`). ' +
      'The first exchange spends the token even when it is refused with 409, so a refused launch needs a new link.',
    tag: 'SSO',
    body: exchangeBody,
    response: sessionSchema,
    errors: ['LAUNCH_TOKEN_INVALID', 'user_inactive', 'conflict'],
    handler: async ({ body, ctx }) => {
      const exchanged = await exchangeLaunchToken(ctx.db, body);
      return {
        session_token: exchanged.session_token,
        expires_at: exchanged.session.expires_at.toISOString(),
        user: presentLearnerUser(exchanged.person),
        app: exchanged.app,
        redirect: exchanged.redirect,
        grading_exam_id: exchanged.session.grading_exam_id ?? null,
      };
    },
  }),
];
