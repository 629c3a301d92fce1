import type { Database } from '../../db/index.js';
import { randomToken } from '../../ids.js';
import type { PortalAccountRow } from '../../models/portal-account.js';
import { hashPassword, verifyPassword } from './passwords.js';

/**
 * A hash of a password nobody knows: an unknown email is checked against it, so it costs the
 * same scrypt as a known one and the answer's timing does not tell which emails have accounts.
 */
let dummyHash: Promise<string> | null = null;
const unknownAccountHash = () => (dummyHash ??= hashPassword(randomToken(32)));

/** The account of `email` when `password` is its password; null for a wrong password, an unknown email or an account without one. */
export async function accountWithPassword(db: Database, email: string, password: string): Promise<PortalAccountRow | null> {
  const account = await db.models.PortalAccount.findOne({ where: { email } });
  const storedHash = account?.password_hash ?? (await unknownAccountHash());
  const matches = await verifyPassword(password, storedHash);
  return account && account.password_hash && matches ? account : null;
}
