import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `length` characters of [A-Za-z0-9] from the CSPRNG, without modulo bias. */
export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= 248) continue; // 248 = 4 * 62: keeps every character equally likely
      out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Opaque ids with a type prefix (`stu_…`, `evt_…`), as docs/api.md#ids-and-references states. */
export type IdPrefix = 'inst' | 'acc' | 'mem' | 'key' | 'evt' | (string & {});

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomToken(24)}`;
}
