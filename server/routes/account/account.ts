import type { Request, Response } from 'express';
import { accountWithPassword } from '../../commands/accounts/sign-in.js';
import { isSetUp, runSetup, setupInput } from '../../commands/accounts/setup.js';
import { sandboxIdsOf } from '../../commands/institutions/sandbox.js';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/index.js';
import { AppError } from '../../errors.js';
import { defineRoute, type AnyPortalRoute } from '../../http/route.js';
import { waitInWords, type LoginThrottle } from '../../portal/login-throttle.js';
import { membershipsOf } from '../../portal/policies.js';
import { endSession, startSession, type PortalAuth } from '../../portal/session.js';
import { presentSession } from '../../presenters/account.js';
import { z } from '../../validation/zod.js';
import { loginBody, sessionSchema, setupStatusSchema } from './schema.js';

/** The portal account's session: first-run setup, sign-in, sign-out and who is signed in. */

/** The signed-in account with its memberships and their sandboxes; the memberships are the portal's, so they are read here. */
async function sessionOf(db: Database, auth: PortalAuth) {
  const memberships = await membershipsOf(db, auth.account.id);
  const sandboxes = await sandboxIdsOf(
    db,
    memberships.map(({ institution }) => institution.id),
  );
  return presentSession(auth, memberships, sandboxes);
}

// ---------------------------------------------------------------------------------------------
// Sign-in
// ---------------------------------------------------------------------------------------------

const WRONG_CREDENTIALS = 'Wrong email or password.';

/** Throttled per email and address: only a wrong email or password counts against it. */
async function signIn(ctx: AppContext, throttle: LoginThrottle, req: Request, res: Response, email: string, password: string) {
  const address = req.ip ?? 'unknown';
  const wait = throttle.retryAfterSeconds(email, address);
  if (wait > 0) {
    res.setHeader('Retry-After', String(wait));
    throw new AppError('rate_limited', `Too many failed sign-ins; try again ${waitInWords(wait)}.`);
  }
  const account = await accountWithPassword(ctx.db, email, password);
  if (!account) {
    throttle.recordFailure(email, address);
    throw new AppError('unauthorized', WRONG_CREDENTIALS);
  }
  // Told only to someone who knows the password, so it reveals nothing to a guesser.
  if (account.status !== 'active') throw new AppError('unauthorized', 'This account is suspended.');
  throttle.recordSuccess(email, address);
  return startSession(ctx.db, req, res, account);
}

export function accountRoutes(throttle: LoginThrottle): AnyPortalRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/setup',
      operationId: 'getSetupState',
      tag: 'Account',
      summary: 'Whether the first-run wizard is needed',
      caller: 'anyone',
      response: setupStatusSchema,
      handler: async ({ ctx }) => ({ needed: !(await isSetUp(ctx.db)) }),
    }),
    defineRoute({
      method: 'post',
      path: '/setup',
      operationId: 'completeSetup',
      tag: 'Account',
      summary: 'First run: the operator, the first institution and its admin (as `cli setup`); signs the admin in',
      caller: 'anyone',
      body: setupInput,
      response: sessionSchema,
      handler: async ({ ctx, req, res, body }) => {
        const { admin } = await runSetup(ctx.db, body);
        return sessionOf(ctx.db, await startSession(ctx.db, req, res, admin));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/login',
      operationId: 'signIn',
      tag: 'Account',
      summary: 'Sign in with email and password',
      caller: 'anyone',
      body: loginBody,
      response: sessionSchema,
      handler: async ({ ctx, req, res, body }) => sessionOf(ctx.db, await signIn(ctx, throttle, req, res, body.email, body.password)),
    }),
    defineRoute({
      method: 'post',
      path: '/logout',
      operationId: 'signOut',
      tag: 'Account',
      summary: 'Sign out',
      caller: 'signed-in',
      response: z.object({ signed_out: z.literal(true) }),
      handler: async ({ ctx, req, res }) => {
        await endSession(ctx.db, req, res);
        return { signed_out: true as const };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/session',
      operationId: 'getSession',
      tag: 'Account',
      summary: 'The signed-in account, its memberships and the CSRF token',
      caller: 'signed-in',
      response: sessionSchema,
      handler: ({ ctx, auth }) => sessionOf(ctx.db, auth),
    }),
  ];
}
