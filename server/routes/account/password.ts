import { changeOwnPassword } from '../../commands/accounts/accounts.js';
import { AppError } from '../../errors.js';
import { LoginThrottle, waitInWords } from '../../portal/login-throttle.js';
import { completePasswordReset, passwordResetAvailable, requestPasswordReset } from '../../commands/accounts/password-resets.js';
import { defineRoute, type AnyPortalRoute } from '../../http/route.js';
import {
  changePasswordBody,
  passwordChangedSchema,
  passwordResetCompleteBody,
  passwordResetDoneSchema,
  passwordResetRequestBody,
  passwordResetRequestedSchema,
  passwordResetStateSchema,
} from './schema.js';

/** Passwords: the signed-in account changes its own; "forgot password" by mail (docs/api.md#portal-roles). */

/** A wrong current password is a password guess (a borrowed session could try them): it counts like a failed sign-in. */
function isWrongCurrentPassword(error: unknown): boolean {
  const details = error instanceof AppError ? (error.extra.details as Array<{ path: string }> | undefined) : undefined;
  return details?.some((detail) => detail.path === 'current_password') ?? false;
}

/**
 * `throttle`: password guesses (a wrong current password). `resetThrottle`: "forgot password"
 * requests, counted like failed sign-ins (5 per email and address, 30 per address, then a wait).
 */
export const passwordRoutes = (throttle: LoginThrottle, resetThrottle: LoginThrottle = new LoginThrottle()): AnyPortalRoute[] => [
  defineRoute({
    method: 'post',
    path: '/account/password',
    operationId: 'changeOwnPassword',
    tag: 'Account',
    summary: 'Change your own password (the current one is asked); your other sessions end',
    caller: 'signed-in',
    body: changePasswordBody,
    response: passwordChangedSchema,
    errors: ['rate_limited'],
    handler: async ({ ctx, req, res, auth, body }) => {
      const address = req.ip ?? 'unknown';
      const wait = throttle.retryAfterSeconds(auth.account.email, address);
      if (wait > 0) {
        res.setHeader('Retry-After', String(wait));
        throw new AppError('rate_limited', `Too many wrong passwords; try again ${waitInWords(wait)}.`);
      }
      try {
        const changed = await changeOwnPassword(ctx.db, {
          accountId: auth.account.id,
          sessionId: auth.session.id,
          currentPassword: body.current_password,
          newPassword: body.new_password,
        });
        return { ended_sessions: changed.endedSessions };
      } catch (error) {
        if (isWrongCurrentPassword(error)) throttle.recordFailure(auth.account.email, address);
        throw error;
      }
    },
  }),
  defineRoute({
    method: 'get',
    path: '/password-reset',
    operationId: 'getPasswordResetState',
    tag: 'Account',
    summary: 'Whether "forgot password" works here (it needs a mail server)',
    caller: 'anyone',
    response: passwordResetStateSchema,
    handler: async ({ ctx }) => ({ available: await passwordResetAvailable(ctx.db) }),
  }),
  defineRoute({
    method: 'post',
    path: '/password-reset',
    operationId: 'requestPasswordReset',
    tag: 'Account',
    summary: 'Mail a link to set a new password (valid one hour, once); the answer is the same for every email',
    caller: 'anyone',
    body: passwordResetRequestBody,
    response: passwordResetRequestedSchema,
    errors: ['conflict', 'rate_limited'],
    handler: async ({ ctx, body, req, res }) => {
      // Each request counts, per address and per email from it: a flood of mails is refused, not sent.
      const address = req.ip ?? 'unknown';
      const wait = resetThrottle.retryAfterSeconds(body.email, address);
      if (wait > 0) {
        res.setHeader('Retry-After', String(wait));
        throw new AppError('rate_limited', `Too many requests for a new password from this address; try again ${waitInWords(wait)}.`);
      }
      resetThrottle.recordFailure(body.email, address);
      const { queued } = await requestPasswordReset(ctx.db, { email: body.email, portalUrl: await ctx.publicUrl() });
      queued.catch((err: unknown) => ctx.logger.error({ err }, 'queuing a password reset mail failed'));
      return { requested: true as const };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/password-reset/complete',
    operationId: 'completePasswordReset',
    tag: 'Account',
    summary: 'Set a new password with a mailed link; every session of the account ends',
    caller: 'anyone',
    body: passwordResetCompleteBody,
    response: passwordResetDoneSchema,
    handler: async ({ ctx, body }) => completePasswordReset(ctx.db, body),
  }),
];
