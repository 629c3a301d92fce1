import { findAccount, listAccounts, newPasswordSchema, refuseOwnAccount, resetAccountPassword, type AccountListing } from '../../commands/accounts/accounts.js';
import { defineRoute, type AnyPortalRoute } from '../../http/route.js';
import { z } from '../../validation/zod.js';

/** Every portal account, and the operator's password reset (as `account list` and `account password`). */

export const accountLineSchema = z.object({
  account_id: z.string(),
  email: z.string(),
  role: z.enum(['operator', 'admin', 'developer']),
  /** Null on the operator's line. */
  institution_id: z.string().nullable(),
  status: z.enum(['active', 'suspended']),
});
export const accountListSchema = z.object({ items: z.array(accountLineSchema) });

const accountsQuery = z.strictObject({ institution: z.string().min(1).max(40).optional() });
const accountParams = z.strictObject({ accountId: z.string().min(1).max(40) });
const passwordBody = z.strictObject({ password: newPasswordSchema });

function presentAccountLine(line: AccountListing): z.input<typeof accountLineSchema> {
  return { account_id: line.account.id, email: line.account.email, role: line.role, institution_id: line.institutionId, status: line.status };
}

export const operatorAccountRoutes: AnyPortalRoute[] = [
  defineRoute({
    method: 'get',
    path: '/operator/accounts',
    operationId: 'listAccounts',
    tag: 'Operator',
    summary: 'Every portal account, one line per role it holds (as `account list`)',
    caller: 'operator',
    query: accountsQuery,
    response: accountListSchema,
    errors: ['not_found'],
    handler: async ({ ctx, query }) => ({ items: (await listAccounts(ctx.db, { institutionId: query.institution })).map(presentAccountLine) }),
  }),
  defineRoute({
    method: 'post',
    path: '/operator/accounts/{accountId}/password',
    operationId: 'resetAccountPassword',
    tag: 'Operator',
    summary: "Set another account's password (as `account password`); every session of that account ends",
    caller: 'operator',
    params: accountParams,
    body: passwordBody,
    response: z.object({ account_id: z.string(), email: z.string() }),
    errors: ['not_found', 'conflict'],
    handler: async ({ ctx, auth, params, body }) => {
      await findAccount(ctx.db, params.accountId);
      refuseOwnAccount(params.accountId, auth.account.id);
      const account = await resetAccountPassword(ctx.db, params.accountId, body.password);
      return { account_id: account.id, email: account.email };
    },
  }),
];
