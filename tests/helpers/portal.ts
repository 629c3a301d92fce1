// The portal API as the suites drive it: the response envelope, the first-run setup and signed-in
// accounts, over HTTP against a TestAppliance. A supertest agent keeps the session cookie the way
// a browser would; writes carry the session's CSRF token in X-CSRF-Token.
import supertest from 'supertest';
import { expect } from 'vitest';
import { hashPassword } from '../../server/commands/accounts/passwords.js';
import { Tenant } from '../../server/db/tenant.js';
import { newId } from '../../server/ids.js';
import type { MembershipRole } from '../../server/models/membership.js';
import type { TestAppliance, TestInstitution } from './appliance.js';

export type Res = supertest.Response;
export type Agent = ReturnType<typeof supertest.agent>;

/** Success: 200 with exactly `{success: true, data}`. On failure the whole body is shown. */
export function expectOk(res: Res): void {
  expect({ status: res.status, body: res.body?.success === true ? 'ok' : res.body }).toEqual({ status: 200, body: 'ok' });
  expect(Object.keys(res.body).sort()).toEqual(['data', 'success']);
}

/** The answer's `data`, after checking it is a success (as `expectOk`). */
export function ok<T = Record<string, any>>(res: Res): T {
  expectOk(res);
  return res.body.data as T;
}

/** Failure: the status and error code, `success: false` and a message for people. */
export function expectError(res: Res, status: number, code: string): void {
  expect({ status: res.status, error: res.body?.error }).toEqual({ status, error: code });
  expect(res.body.success).toBe(false);
  expect(typeof res.body.message).toBe('string');
}

/** A signed-in browser: its agent (holding the cookie), the session's CSRF token and the account. */
export interface SignedIn {
  agent: Agent;
  csrf: string;
  accountId: string;
}

/** What POST /portal/api/setup and /login answer. */
export interface PortalSession {
  account: { id: string; email: string; is_operator: boolean };
  memberships: Array<{ institution: { id: string; name: string; status: string }; role: MembershipRole }>;
  csrf_token: string;
}

/** The first-run wizard's answers. */
export interface SetupBody {
  institution: string;
  admin_email: string;
  admin_password: string;
}

export interface FirstRun extends SignedIn {
  /** The institution made by setup, whose admin the operator is. */
  institution: TestInstitution;
  institutionId: string;
  session: PortalSession;
}

/** Signs in through POST /portal/api/login with a fresh agent. */
export async function signIn(app: TestAppliance, email: string, password: string): Promise<SignedIn & { session: PortalSession }> {
  const agent = supertest.agent(app.origin);
  const session = ok<PortalSession>(await agent.post('/portal/api/login').send({ email, password }));
  return { agent, csrf: session.csrf_token, accountId: session.account.id, session };
}

/** First run through POST /portal/api/setup: the operator and their institution, signed in as the operator. */
export async function setUpPortal(app: TestAppliance, body: SetupBody): Promise<FirstRun> {
  const agent = supertest.agent(app.origin);
  const session = ok<PortalSession>(await agent.post('/portal/api/setup').send(body));
  const { id, name } = session.memberships[0]!.institution;
  return {
    agent,
    csrf: session.csrf_token,
    accountId: session.account.id,
    institution: { id, name, tenant: new Tenant(app.ctx.db, id) },
    institutionId: id,
    session,
  };
}

/** The password of accounts made here unless one is given. */
export const MEMBER_PASSWORD = 'member password 1';

/**
 * An active portal account (not the operator), made directly through the models as if an
 * invitation had been accepted, with an active `role` membership of `institutionId` unless that
 * is null. A null `password` makes an account that has never set one. The email is random unless
 * given.
 */
export async function createAccount(
  app: TestAppliance,
  institutionId: string | null,
  role: MembershipRole,
  options: { email?: string; password?: string | null } = {},
) {
  const { PortalAccount, Membership } = app.ctx.db.models;
  const email = options.email ?? `${role}-${Math.random().toString(36).slice(2, 8)}@example.test`;
  const password = options.password === undefined ? MEMBER_PASSWORD : options.password;
  const account = await PortalAccount.create({
    id: newId('acc'),
    email,
    password_hash: password === null ? null : await hashPassword(password),
    is_operator: false,
    status: 'active',
  });
  if (institutionId) {
    await Membership.create({ id: newId('mem'), institution_id: institutionId, account_id: account.id, role, status: 'active' });
  }
  return { account, email, password };
}

/** `createAccount`, then signed in with a fresh agent. */
export async function signedInMember(
  app: TestAppliance,
  institutionId: string | null,
  role: MembershipRole,
  options: { email?: string; password?: string } = {},
) {
  const password = options.password ?? MEMBER_PASSWORD;
  const { account, email } = await createAccount(app, institutionId, role, { ...options, password });
  return { account, email, password, ...(await signIn(app, email, password)) };
}

/** The portal API path of one institution. */
export const institutionApi = (institutionId: string) => `/portal/api/institutions/${institutionId}`;

/**
 * Requests under `root` (e.g. an institution's or the operator's API) as one signed-in browser,
 * with its CSRF token on every write. Both are read at call time, so the helper can be made
 * before `beforeAll` signs in.
 */
export function portalRequests(signed: () => Pick<SignedIn, 'agent' | 'csrf'>, root: () => string) {
  const url = (path: string) => `${root()}${path}`;
  return {
    get: (path: string, query: Record<string, string | number> = {}) => signed().agent.get(url(path)).query(query),
    post: (path: string, body: unknown = {}) =>
      signed()
        .agent.post(url(path))
        .set('X-CSRF-Token', signed().csrf)
        .send(body as object),
    put: (path: string, body: unknown) =>
      signed()
        .agent.put(url(path))
        .set('X-CSRF-Token', signed().csrf)
        .send(body as object),
    patch: (path: string, body: unknown) =>
      signed()
        .agent.patch(url(path))
        .set('X-CSRF-Token', signed().csrf)
        .send(body as object),
    del: (path: string) => signed().agent.delete(url(path)).set('X-CSRF-Token', signed().csrf),
  };
}
