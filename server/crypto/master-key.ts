import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Where the 32-byte master secret lives. Headless: a 0600 file in DATA_DIR, beside (not inside)
 * the database, so a copy of the database alone reveals no encrypted field. The desktop shell
 * supplies an implementation backed by the OS keychain (Electron safeStorage).
 */
export interface MasterKeyStore {
  load(): Buffer | null;
  save(key: Buffer): void;
}

export class FileMasterKeyStore implements MasterKeyStore {
  constructor(private readonly file: string) {}

  load(): Buffer | null {
    if (!fs.existsSync(this.file)) return null;
    const text = fs.readFileSync(this.file, 'utf8').trim();
    // The desktop program seals the key with the OS keychain (electron/master-key-store.ts),
    // which only the desktop program can open.
    if (text.startsWith('safestorage:')) {
      throw new Error(
        `${this.file} is sealed by the CampusBridge desktop program's keychain and can only be read by it: ` +
          'run the desktop program on this folder, or point DATA_DIR at another folder',
      );
    }
    const key = Buffer.from(text, 'base64');
    if (key.length !== 32) throw new Error(`${this.file} does not hold a 32-byte key`);
    return key;
  }

  save(key: Buffer): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    // wx: never overwrite a key that appeared meanwhile (the CLI and the server may start together).
    fs.writeFileSync(this.file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  }
}

export const masterKeyFile = (dataDir: string) => path.join(dataDir, 'master.key');

/** The master key, created on first use. */
export function loadOrCreateMasterKey(store: MasterKeyStore): Buffer {
  const existing = store.load();
  if (existing) return existing;
  try {
    store.save(randomBytes(32));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const created = store.load();
  if (!created) throw new Error('master key could not be stored');
  return created;
}
