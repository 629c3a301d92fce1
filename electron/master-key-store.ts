import fs from 'node:fs';
import { FileMasterKeyStore, type MasterKeyStore } from '../server/crypto/master-key.js';
import type { SafeStorageApi } from './electron-api.js';

// The protected form keeps the key file's name, so a headless start on the same folder fails on
// the unreadable file instead of finding no key and making a new one (which would orphan every
// encrypted field).
const PROTECTED_PREFIX = 'safestorage:v1:';

function isProtectedFile(file: string): boolean {
  return fs.existsSync(file) && fs.readFileSync(file, 'utf8').startsWith(PROTECTED_PREFIX);
}

/**
 * Chromium's `basic_text` backend (Linux without a secret service) encrypts with a password built
 * into Chromium: no better than the 0600 file, and it would tie the key to a backend that changes
 * once a keyring is installed.
 */
export function keychainAvailable(safeStorage: SafeStorageApi, platform: NodeJS.Platform): boolean {
  if (!safeStorage.isEncryptionAvailable()) return false;
  return platform !== 'linux' || safeStorage.getSelectedStorageBackend() !== 'basic_text';
}

/**
 * The master key encrypted by the operating system's keychain (Electron safeStorage: DPAPI,
 * Keychain, libsecret/kwallet), in the usual key file. A plain key file from an earlier (or
 * headless) start is rewritten in the protected form on first load, keeping the key.
 */
export class SafeStorageMasterKeyStore implements MasterKeyStore {
  constructor(
    private readonly file: string,
    private readonly safeStorage: SafeStorageApi,
  ) {}

  load(): Buffer | null {
    if (!fs.existsSync(this.file)) return null;
    const text = fs.readFileSync(this.file, 'utf8');
    if (text.startsWith(PROTECTED_PREFIX)) return this.unprotect(text);
    const key = new FileMasterKeyStore(this.file).load();
    if (key) this.migrate(key);
    return key;
  }

  save(key: Buffer): void {
    // wx, as the file store: never overwrite a key that appeared meanwhile.
    fs.writeFileSync(this.file, this.protect(key), { mode: 0o600, flag: 'wx' });
  }

  private protect(key: Buffer): string {
    const sealed = this.safeStorage.encryptString(key.toString('base64'));
    return `${PROTECTED_PREFIX}${sealed.toString('base64')}\n`;
  }

  private unprotect(text: string): Buffer {
    if (!this.safeStorage.isEncryptionAvailable()) {
      throw new Error(`the master key in ${this.file} is protected by this computer's keychain, which is not available now`);
    }
    let key: Buffer;
    try {
      key = Buffer.from(this.safeStorage.decryptString(Buffer.from(text.slice(PROTECTED_PREFIX.length).trim(), 'base64')), 'base64');
    } catch (error) {
      throw new Error(`the keychain could not decrypt the master key in ${this.file}: ${(error as Error).message}`, { cause: error });
    }
    if (key.length !== 32) throw new Error(`${this.file} does not hold a 32-byte key`);
    return key;
  }

  /** Replaces the plain file by its protected form in one rename, after checking the form decrypts to the same key. */
  private migrate(key: Buffer): void {
    const text = this.protect(key);
    if (!this.unprotect(text).equals(key)) throw new Error('the keychain did not give back the master key it encrypted');
    const next = `${this.file}.protecting`;
    fs.writeFileSync(next, text, { mode: 0o600 });
    fs.renameSync(next, this.file);
  }
}

/**
 * The one place that chooses where the desktop app keeps the master key: the keychain when the
 * system has one (or the key is already protected by it, so a missing keychain is reported rather
 * than a new key made), the 0600 file otherwise.
 */
export function pickMasterKeyStore(file: string, safeStorage: SafeStorageApi, platform: NodeJS.Platform): MasterKeyStore {
  if (isProtectedFile(file) || keychainAvailable(safeStorage, platform)) return new SafeStorageMasterKeyStore(file, safeStorage);
  return new FileMasterKeyStore(file);
}
