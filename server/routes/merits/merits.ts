import { creditMerits, getWallet, listLedger, readAllowance } from '../../commands/wallet/merits.js';
import { defineRoute, type ApiRoute } from '../../http/route.js';
import { presentCredit, presentLedgerEntry, presentWallet } from '../../presenters/merit.js';
import { allowanceSchema, creditBody, creditResponse, ledgerPage, listLedgerQuery, walletParams, walletSchema } from './schema.js';

export const meritRoutes: ApiRoute[] = [
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/merits/allowance',
    operationId: 'getMeritAllowance',
    summary: "Read the institution's merit allowance",
    description: 'Set by the appliance operator (`merits allowance --institution <id> --cents <n>`); zeros until then.',
    tag: 'Merits',
    scope: 'merits:read',
    response: allowanceSchema,
    handler: async ({ tenant }) => readAllowance(tenant),
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/merits/wallets/{email}',
    operationId: 'getMeritWallet',
    summary: "Read a student's merit wallet",
    description: 'Balance and newest ledger rows. Not a student of this institution: `404 user_not_found`.',
    tag: 'Merits',
    scope: 'merits:read',
    params: walletParams,
    response: walletSchema,
    errors: ['user_not_found'],
    handler: async ({ tenant, params }) => presentWallet(await getWallet(tenant, params.email)),
  }),
  defineRoute({
    caller: 'key',
    method: 'post',
    path: '/merits/credits',
    operationId: 'createMeritCredit',
    summary: "Credit merits to a student's wallet",
    description:
      'Draws `amount_cents` from the remaining allowance (more than remains: `409 insufficient_allowance` with `remaining_cents`; exactly what remains is fine). ' +
      'Idempotent on `ref`: the same `ref` with the same `email` (any case), `amount_cents` and `reason` (trimmed) answers the first result again, ' +
      'balance included, with `replayed: true` and credits nothing, whatever the allowance is now; the same `ref` with anything different is ' +
      '`409 conflict` carrying the first `credit_id`. A refused credit does not use up its `ref`. ' +
      'Unknown student: `404 user_not_found`. Emits `merit.credited` once.',
    tag: 'Merits',
    scope: 'merits:write',
    body: creditBody,
    response: creditResponse,
    errors: ['user_not_found', 'insufficient_allowance', 'conflict'],
    handler: async ({ tenant, body }) => presentCredit(await creditMerits(tenant, body)),
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/merits/ledger',
    operationId: 'listMeritLedger',
    summary: 'List merit ledger rows',
    description: 'Every wallet movement of the institution (credits, coupons, AI spends), oldest first.',
    tag: 'Merits',
    scope: 'merits:read',
    query: listLedgerQuery,
    response: ledgerPage,
    handler: async ({ tenant, query }) => {
      const page = await listLedger(tenant, query);
      return { ...page, items: page.items.map(presentLedgerEntry) };
    },
  }),
];
