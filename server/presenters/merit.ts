import type { CreditResult, LedgerEntry, Wallet } from '../commands/wallet/merits.js';

/** A ledger row: `amount_cents` is negative for a spend. */
export function presentLedgerEntry({ entry, email }: LedgerEntry) {
  return {
    id: entry.id,
    email,
    kind: entry.kind,
    amount_cents: Number(entry.amount_cents),
    reason: entry.reason,
    ref: entry.ref,
    created_at: entry.created_at.toISOString(),
  };
}

export function presentWallet(wallet: Wallet) {
  return { email: wallet.email, balance_cents: wallet.balance_cents, ledger: wallet.ledger.map(presentLedgerEntry) };
}

/** A credit, first time or replayed: the balance is the one right after the credit, as first answered. */
export function presentCredit({ entry, email, replayed }: CreditResult) {
  return {
    credit_id: entry.id,
    email,
    amount_cents: Number(entry.amount_cents),
    balance_cents: Number(entry.balance_after_cents),
    ref: entry.ref ?? '',
    replayed,
  };
}
