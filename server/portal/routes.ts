import express, { type Request, type Response, type Router } from 'express';
import type { AppContext } from '../context.js';
import { apiKeyInput, apiKeyUpdateInput, createApiKey, listApiKeys, revokeApiKey, updateApiKey } from '../commands/api-keys.js';
import { hashPassword, verifyPassword } from '../commands/passwords.js';
import { isSetUp, runSetup, setupInput } from '../commands/setup.js';
import type { Database } from '../db/index.js';
import { AppError } from '../errors.js';
import { mountPortalOperations } from '../http/route.js';
import { apiRoutes } from '../routes/index.js';
import { z } from '../validation/zod.js';
import { randomToken } from '../ids.js';
import { presentApiKey, presentCreatedApiKey } from '../presenters/api-key.js';
import { auditRoutes } from './audit.js';
import { developerRoutes } from './developers.js';
import { LoginThrottle } from './login-throttle.js';
import { buildPortalOpenApiDocument } from './openapi.js';
import { operatorRoutes } from './operator.js';
import { settingsRoutes } from './settings.js';
import { membershipsOf } from './policies.js';
import { definePortalRoute, mountPortalRoutes, type PortalRoute } from './route.js';
import { endSession, startSession, type PortalAuth } from './session.js';

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

export const sessionSchema = z.object({
  account: z.object({ id: z.string(), email: z.string(), is_operator: z.boolean() }),
  memberships: z.array(
    z.object({
      institution: z.object({ id: z.string(), name: z.string(), status: z.enum(['pending', 'approved', 'suspended']) }),
      role: z.enum(['admin', 'developer']),
    }),
  ),
  csrf_token: z.string(),
});

export const apiKeySchema = z.object({
  key_id: z.string(),
  name: z.string(),
  prefix: z.string(),
  last4: z.string(),
  scopes: z.array(z.string()),
  rate_limit_per_min: z.number().int(),
  status: z.enum(['active', 'revoked']),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
});

export const createdApiKeySchema = z.object({
  key_id: z.string(),
  key: z.string(),
  name: z.string(),
  scopes: z.array(z.string()),
  rate_limit_per_min: z.number().int(),
  prefix: z.string(),
  last4: z.string(),
});

const institutionParams = z.strictObject({ id: z.string().min(1).max(40) });
const keyParams = z.strictObject({ id: z.string().min(1).max(40), keyId: z.string().min(1).max(40) });
const loginBody = z.strictObject({
  email: z
    .string()
    .trim()
    .min(1)
    .max(320)
    .transform((email) => email.toLowerCase()),
  password: z.string().min(1).max(200),
});

// ---------------------------------------------------------------------------------------------
// Presenter
// ---------------------------------------------------------------------------------------------

/** The signed-in account as the portal shows it: never the password hash, never the session token. */
async function presentSession(db: Database, auth: PortalAuth): Promise<z.input<typeof sessionSchema>> {
  const memberships = await membershipsOf(db, auth.account.id);
  return {
    account: { id: auth.account.id, email: auth.account.email, is_operator: auth.account.is_operator },
    memberships: memberships.map(({ institution, role }) => ({
      institution: { id: institution.id, name: institution.name, status: institution.status },
      role,
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

// ---------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------

const KEY_ROLES = ['admin', 'developer'] as const;

export const setupStatusSchema = z.object({ needed: z.boolean() });

export function portalRoutes(throttle: LoginThrottle): PortalRoute[] {
  return [
    definePortalRoute({
      method: 'get',
      path: '/setup',
      summary: 'Whether the first-run wizard is needed',
      access: 'none',
      response: setupStatusSchema,
      handler: async ({ ctx }) => ({ needed: !(await isSetUp(ctx.db)) }),
    }),
    definePortalRoute({
      method: 'post',
      path: '/setup',
      summary: 'First run: the operator, the first institution and its admin (as `cli setup`); signs the admin in',
      access: 'none',
      body: setupInput,
      response: sessionSchema,
      handler: async ({ ctx, req, res, body }) => {
        const { admin } = await runSetup(ctx.db, body);
        return presentSession(ctx.db, await startSession(ctx.db, req, res, admin));
      },
    }),
    definePortalRoute({
      method: 'post',
      path: '/login',
      summary: 'Sign in with email and password',
      access: 'none',
      body: loginBody,
      response: sessionSchema,
      handler: async ({ ctx, req, res, body }) => presentSession(ctx.db, await signIn(ctx, throttle, req, res, body.email, body.password)),
    }),
    definePortalRoute({
      method: 'post',
      path: '/logout',
      summary: 'Sign out',
      access: 'session',
      response: z.object({ signed_out: z.literal(true) }),
      handler: async ({ ctx, req, res }) => {
        await endSession(ctx.db, req, res);
        return { signed_out: true as const };
      },
    }),
    definePortalRoute({
      method: 'get',
      path: '/session',
      summary: 'The signed-in account, its memberships and the CSRF token',
      access: 'session',
      response: sessionSchema,
      handler: ({ ctx, auth }) => presentSession(ctx.db, auth),
    }),

    definePortalRoute({
      method: 'get',
      path: '/institutions/{id}/keys',
      summary: "The institution's API keys (never the key itself)",
      access: 'member',
      roles: KEY_ROLES,
      params: institutionParams,
      response: z.array(apiKeySchema),
      handler: async ({ access }) => (await listApiKeys(access.tenant)).map(presentApiKey),
    }),
    definePortalRoute({
      method: 'post',
      path: '/institutions/{id}/keys',
      summary: 'Create an API key; the full key is in this answer only. Developers may not grant admin-only scopes (403 forbidden)',
      access: 'member',
      roles: KEY_ROLES,
      params: institutionParams,
      body: apiKeyInput.omit({ created_by: true }),
      response: createdApiKeySchema,
      handler: async ({ access, auth, body }) => {
        const { row, key } = await createApiKey(access.tenant, { ...body, created_by: auth.account.id }, { grantedBy: access.role });
        return presentCreatedApiKey(row, key);
      },
    }),
    definePortalRoute({
      method: 'patch',
      path: '/institutions/{id}/keys/{keyId}',
      summary: 'Rename a key or change its rate limit',
      access: 'member',
      roles: KEY_ROLES,
      params: keyParams,
      body: apiKeyUpdateInput,
      response: apiKeySchema,
      handler: async ({ access, params, body }) => presentApiKey(await updateApiKey(access.tenant, params.keyId, body)),
    }),
    definePortalRoute({
      method: 'post',
      path: '/institutions/{id}/keys/{keyId}/revoke',
      summary: 'Revoke a key; it stops working at once',
      access: 'member',
      roles: KEY_ROLES,
      params: keyParams,
      response: apiKeySchema,
      handler: async ({ access, params }) => presentApiKey(await revokeApiKey(access.tenant, params.keyId)),
    }),

    ...developerRoutes(throttle),
    ...auditRoutes,
    ...operatorRoutes,
    ...settingsRoutes,
  ];
}

/**
 * The portal's API, mounted at /portal/api with the session cookie and the CSRF header: its own
 * operations (accounts, keys, developers, settings, outbox, audit, operator), and every
 * institution operation of /v1, the very same declarations, under /institutions/{institution}.
 */
export function createPortalRouter(ctx: AppContext): Router {
  const router = express.Router();
  const routes = portalRoutes(new LoginThrottle());
  const openApiDocument = buildPortalOpenApiDocument(routes);
  router.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument);
  });
  mountPortalRoutes(router, ctx, routes);
  mountPortalOperations(router, ctx, apiRoutes);
  router.use((_req, res) => {
    res.status(404).json({ success: false, error: 'not_found', message: 'No such portal operation.' });
  });
  return router;
}
