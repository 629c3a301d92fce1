import { Op, type Transaction } from 'sequelize';
import type { Database } from '../../db/index.js';
import { AppError, notFound, validationError } from '../../errors.js';
import type { MembershipRole } from '../../models/membership.js';
import type { PortalAccountRow } from '../../models/portal-account.js';
import { parseInput } from '../../validation/parse.js';
import { normalizeEmail } from '../../validation/people.js';
import { hashPassword, newPasswordSchema, verifyPassword } from './passwords.js';

export { MIN_PASSWORD_LENGTH, newPasswordSchema } from './passwords.js';

/**
 * Ends the account's portal sessions (all of them, or all but `keep`), in the caller's
 * transaction: a changed password must also sign out whoever used the old one.
 */
export async function endSessionsOf(db: Database, accountId: string, transaction: Transaction, keep: string | null = null): Promise<number> {
  const where = keep ? { account_id: accountId, id: { [Op.ne]: keep } } : { account_id: accountId };
  return db.models.PortalSession.destroy({ where, transaction });
}

/**
 * A signed-in account changes its own password: the current one must be right (a `422` on the
 * `current_password` field, not a `401`, which would read as "signed out"), and every other
 * session of the account ends; this one stays.
 */
export async function changeOwnPassword(
  db: Database,
  input: { accountId: string; sessionId: string; currentPassword: string; newPassword: string },
): Promise<{ endedSessions: number }> {
  const newPassword = parseInput(newPasswordSchema, input.newPassword);
  const account = await db.models.PortalAccount.findByPk(input.accountId);
  if (!account) throw notFound('account');
  if (!account.password_hash || !(await verifyPassword(input.currentPassword, account.password_hash))) {
    throw validationError([{ path: 'current_password', message: 'This is not your current password.' }]);
  }
  if (input.currentPassword === newPassword) {
    throw validationError([{ path: 'new_password', message: 'Choose a password different from the current one.' }]);
  }
  const hash = await hashPassword(newPassword);
  return db.sequelize.transaction(async (transaction) => {
    await account.update({ password_hash: hash }, { transaction });
    return { endedSessions: await endSessionsOf(db, account.id, transaction, input.sessionId) };
  });
}

/** Checks a new password's length and hashes it (scrypt runs before any write transaction is opened). */
export async function hashNewPassword(password: string): Promise<string> {
  return hashPassword(parseInput(newPasswordSchema, password));
}

/** Stores a hash from `hashNewPassword` and ends every session of the account, in the caller's transaction. */
export async function replacePassword(db: Database, account: PortalAccountRow, hash: string, transaction: Transaction): Promise<void> {
  await account.update({ password_hash: hash }, { transaction });
  await endSessionsOf(db, account.id, transaction);
}

/** Sets an account's password (the operator's reset); every session of it ends. */
export async function setAccountPassword(db: Database, account: PortalAccountRow, password: string): Promise<void> {
  const hash = await hashNewPassword(password);
  await db.sequelize.transaction((transaction) => replacePassword(db, account, hash, transaction));
}

export async function findAccountByEmail(db: Database, email: string): Promise<PortalAccountRow> {
  const account = await db.models.PortalAccount.findOne({ where: { email: normalizeEmail(email) } });
  if (!account) throw notFound('account');
  return account;
}

export async function findAccount(db: Database, accountId: string): Promise<PortalAccountRow> {
  const account = await db.models.PortalAccount.findByPk(accountId);
  if (!account) throw notFound('account');
  return account;
}

/** The operator resets any account's password (CLI `account password`, the operator's Accounts page). */
export async function resetAccountPassword(db: Database, accountId: string, password: string): Promise<PortalAccountRow> {
  const account = await findAccount(db, accountId);
  await setAccountPassword(db, account, password);
  return account;
}

export type AccountRole = 'operator' | MembershipRole;

/** One line of `account list`: an account in one institution, or the operator (institution null). */
export interface AccountListing {
  account: PortalAccountRow;
  role: AccountRole;
  institutionId: string | null;
  /** The membership's status (or the account's, for the operator line); a suspended account is suspended everywhere. */
  status: 'active' | 'suspended';
}

/**
 * Every account with each of its roles: one line per membership, plus one `operator` line for the
 * operator. With `institutionId`, only that institution's members (an unknown id is a 404).
 */
export async function listAccounts(db: Database, options: { institutionId?: string } = {}): Promise<AccountListing[]> {
  const { PortalAccount, Membership, Institution } = db.models;
  if (options.institutionId && !(await Institution.findByPk(options.institutionId))) throw notFound('institution');
  const memberships = await Membership.findAll({
    where: options.institutionId ? { institution_id: options.institutionId } : {},
    order: [
      ['created_at', 'ASC'],
      ['id', 'ASC'],
    ],
  });
  const accounts = await PortalAccount.findAll({
    where: options.institutionId ? { id: { [Op.in]: memberships.map((row) => row.account_id) } } : {},
    order: [
      ['created_at', 'ASC'],
      ['id', 'ASC'],
    ],
  });
  const byId = new Map(accounts.map((row) => [row.id, row]));
  const lines: AccountListing[] = [];
  if (!options.institutionId) {
    for (const account of accounts) {
      if (account.is_operator) lines.push({ account, role: 'operator', institutionId: null, status: account.status });
    }
  }
  for (const membership of memberships) {
    const account = byId.get(membership.account_id);
    if (!account) continue;
    const status = account.status === 'suspended' ? 'suspended' : membership.status;
    lines.push({ account, role: membership.role, institutionId: membership.institution_id, status });
  }
  return lines;
}

/** Guards the one thing an operator must not do to themself by mistake through a form meant for others. */
export function refuseOwnAccount(accountId: string, actorId: string): void {
  if (accountId === actorId) throw new AppError('conflict', 'Change your own password on your account page, with your current password.');
}
