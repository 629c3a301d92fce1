// @tier unit
// Portal passwords are hashed with scrypt at N=2^15, r=8, p=1, the parameters stored with each
// hash; a hash made with other parameters (a lower cost in the test tiers, a higher one later)
// is checked with its own.
import { describe, expect, it } from 'vitest';
import { hashPassword, lowerPasswordCostForTests, verifyPassword } from '../server/commands/accounts/passwords.js';

describe('password hashes', () => {
  it('are scrypt with N=2^15, r=8, p=1, a 16-byte salt and a 32-byte key, and check only the right password', async () => {
    const hash = await hashPassword('correct horse battery');
    const [kind, n, r, p, salt, key] = hash.split('$');
    expect([kind, n, r, p]).toEqual(['scrypt', '32768', '8', '1']);
    expect(Buffer.from(salt!, 'base64')).toHaveLength(16);
    expect(Buffer.from(key!, 'base64')).toHaveLength(32);
    expect(await verifyPassword('correct horse battery', hash)).toBe(true);
    expect(await verifyPassword('correct horse battery!', hash)).toBe(false);
    expect(await verifyPassword('correct horse battery', 'bcrypt$whatever')).toBe(false);
  });

  it('check each hash with the parameters it carries, whatever new hashes use', async () => {
    const strong = await hashPassword('first password here');
    lowerPasswordCostForTests();
    const cheap = await hashPassword('second password here');
    expect(cheap.split('$').slice(0, 4)).toEqual(['scrypt', '1024', '8', '1']);
    expect(await verifyPassword('first password here', strong)).toBe(true);
    expect(await verifyPassword('second password here', cheap)).toBe(true);
    expect(await verifyPassword('first password here', cheap)).toBe(false);
  });
});
