import type { Request, Response } from 'express';
import { hashPassword, verifyPassword } from '../../commands/accounts/passwords.js';
import { isSetUp, runSetup, setupInput } from '../../commands/accounts/setup.js';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/index.js';
import { AppError } from '../../errors.js';
import { randomToken } from '../../ids.js';
import type { LoginThrottle } from '../../portal/login-throttle.js';
import { membershipsOf } from '../../portal/policies.js';
import { sandboxIdsOf } from '../../commands/institutions/sandbox.js';
import { defineRoute, type AnyPortalRoute } from '../../http/route.js';
import { endSession, startSession, type PortalAuth } from '../../portal/session.js';
import { z } from '../../validation/zod.js';

/** The portal account's session: first-run setup, sign-in, sign-out and who is signed in. */

export const sessionSchema = z.object({
  account: z.object({ id: z.string(), email: z.string(), is_operator: z.boolean() }),
  memberships: z.array(
    z.object({
      institution: z.object({ id: z.string(), name: z.string(), status: z.enum(['pending', 'approved', 'suspended']) }),
      role: z.enum(['admin', 'developer']),
      /** The institution's sandbox (docs/decisions/sandbox.md), null until first opened: the portal's sandbox view uses this id. */
      sandbox_id: z.string().nullable(),
    }),
  ),
  csrf_token: z.string(),
});

export const setupStatusSchema = z.object({ needed: z.boolean() });

const loginBody = z.strictObject({
  email: z
    .string()
    .trim()
    .min(1)
    .max(320)
    .transform((email) => email.toLowerCase()),
  password: z.string().min(1).max(200),
});

/** The signed-in account as the portal shows it: never the password hash, never the session token. */
async function presentSession(db: Database, auth: PortalAuth): Promise<z.input<typeof sessionSchema>> {
  const memberships = await membershipsOf(db, auth.account.id);
  const sandboxes = await sandboxIdsOf(
    db,
    memberships.map(({ institution }) => institution.id),
  );
  return {
    account: { id: auth.account.id, email: auth.account.email, is_operator: auth.account.is_operator },
    memberships: memberships.map(({ institution, role }) => ({
      institution: { id: institution.id, name: institution.name, status: institution.status },
      role,
      sandbox_id: sandboxes.get(institution.id) ?? null,
    })),
    csrf_token: auth.csrfToken,
  };
}

// ---------------------------------------------------------------------------------------------
// Sign-in
// ---------------------------------------------------------------------------------------------

const WRONG_CREDENTIALS = 'Wrong email or password.';

/**
 * A hash of a password nobody knows: an unknown email is checked against it, so it costs the
 * same scrypt as a known one and the answer's timing does not tell which emails have accounts.
 */
let dummyHash: Promise<string> | null = null;
const unknownAccountHash = () => (dummyHash ??= hashPassword(randomToken(32)));

async function signIn(ctx: AppContext, throttle: LoginThrottle, req: Request, res: Response, email: string, password: string) {
  const address = req.ip ?? 'unknown';
  const wait = throttle.retryAfterSeconds(email, address);
  if (wait > 0) {
    res.setHeader('Retry-After', String(wait));
    throw new AppError('rate_limited', 'Too many failed sign-ins; try again later.');
  }
  const account = await ctx.db.models.PortalAccount.findOne({ where: { email } });
  const storedHash = account?.password_hash ?? (await unknownAccountHash());
  const matches = await verifyPassword(password, storedHash);
  if (!account || !account.password_hash || !matches) {
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
        return presentSession(ctx.db, await startSession(ctx.db, req, res, admin));
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
      handler: async ({ ctx, req, res, body }) => presentSession(ctx.db, await signIn(ctx, throttle, req, res, body.email, body.password)),
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
      handler: ({ ctx, auth }) => presentSession(ctx.db, auth),
    }),
  ];
}
