import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { z } from '../../validation/zod.js';

/** Every portal password: at least 10 characters (setup, invitations, resets, changes). */
export const MIN_PASSWORD_LENGTH = 10;
export const newPasswordSchema = z.string().min(MIN_PASSWORD_LENGTH, `Use at least ${MIN_PASSWORD_LENGTH} characters.`).max(200);

// scrypt is memory-hard and ships with Node: N=2^15, r=8 uses 32 MiB per hash (about 65 ms of a core).
const PARAMS = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const KEY_LENGTH = 32;
/** N for new hashes: PARAMS.N, except in a test process that lowered it. */
let costN: number = PARAMS.N;

/**
 * For test processes that run the appliance inside themselves (tests/helpers/in-process-setup.ts):
 * new hashes use N=2^10, a thirty-second of the work. A hash carries its own parameters and is
 * checked with them, so the code under test is the same; the suite made and checked about 500
 * hashes at 65 ms each. Refused outside vitest, so no appliance can be started with it.
 */
export function lowerPasswordCostForTests(): void {
  if (!process.env.VITEST) throw new Error('lowerPasswordCostForTests is for the test suite only');
  costN = 2 ** 10;
}

function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scryptCallback(password, salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))));
}

/** `scrypt$N$r$p$salt$hash`, base64 parts: the parameters travel with the hash so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const params = { ...PARAMS, N: costN };
  const hash = await scrypt(password, salt, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p), maxmem: PARAMS.maxmem });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
