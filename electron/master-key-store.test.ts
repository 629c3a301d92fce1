// @tier unit
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileMasterKeyStore, loadOrCreateMasterKey } from '../server/crypto/master-key.js';
import { keychainAvailable, pickMasterKeyStore, SafeStorageMasterKeyStore } from './master-key-store.js';
import { FakeSafeStorage } from './test-support/fake-electron.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function keyFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'campusbridge-key-'));
  dirs.push(dir);
  return path.join(dir, 'master.key');
}

const mode = (file: string) => fs.statSync(file).mode & 0o777;
const posix = process.platform !== 'win32';

describe('keychainAvailable', () => {
  it('needs encryption, and on Linux a real secret store rather than basic_text', () => {
    expect(keychainAvailable(new FakeSafeStorage(true, 'gnome_libsecret'), 'linux')).toBe(true);
    expect(keychainAvailable(new FakeSafeStorage(true, 'basic_text'), 'linux')).toBe(false);
    expect(keychainAvailable(new FakeSafeStorage(false, 'unknown'), 'linux')).toBe(false);
    expect(keychainAvailable(new FakeSafeStorage(true, 'basic_text'), 'win32')).toBe(true);
    expect(keychainAvailable(new FakeSafeStorage(false), 'darwin')).toBe(false);
  });
});

describe('pickMasterKeyStore', () => {
  it('uses the keychain when there is one', () => {
    expect(pickMasterKeyStore(keyFile(), new FakeSafeStorage(true), 'darwin')).toBeInstanceOf(SafeStorageMasterKeyStore);
  });

  it('falls back to the 0600 file without one (headless)', () => {
    expect(pickMasterKeyStore(keyFile(), new FakeSafeStorage(false), 'linux')).toBeInstanceOf(FileMasterKeyStore);
    expect(pickMasterKeyStore(keyFile(), new FakeSafeStorage(true, 'basic_text'), 'linux')).toBeInstanceOf(FileMasterKeyStore);
  });

  it('keeps using the keychain store for a protected key, so a missing keychain is reported instead of a new key made', () => {
    const file = keyFile();
    const keychain = new FakeSafeStorage(true);
    const key = loadOrCreateMasterKey(new SafeStorageMasterKeyStore(file, keychain));
    keychain.available = false;

    const store = pickMasterKeyStore(file, keychain, 'linux');

    expect(store).toBeInstanceOf(SafeStorageMasterKeyStore);
    expect(() => store.load()).toThrow("protected by this computer's keychain, which is not available now");
    expect(key).toHaveLength(32);
  });
});

describe('SafeStorageMasterKeyStore', () => {
  it('creates a key stored encrypted, readable only through the keychain', () => {
    const file = keyFile();
    const keychain = new FakeSafeStorage(true);
    const key = loadOrCreateMasterKey(new SafeStorageMasterKeyStore(file, keychain));

    const text = fs.readFileSync(file, 'utf8');
    expect(text.startsWith('safestorage:v1:')).toBe(true);
    expect(text).not.toContain(key.toString('base64'));
    if (posix) expect(mode(file)).toBe(0o600);
    expect(new SafeStorageMasterKeyStore(file, keychain).load()?.equals(key)).toBe(true);
    // The headless store refuses the protected file rather than taking it for a missing key.
    expect(() => new FileMasterKeyStore(file).load()).toThrow('sealed by the CampusBridge desktop program');
  });

  it('rewrites a plain key file in the protected form, keeping the key', () => {
    const file = keyFile();
    const key = randomBytes(32);
    new FileMasterKeyStore(file).save(key);

    const loaded = new SafeStorageMasterKeyStore(file, new FakeSafeStorage(true)).load();

    expect(loaded?.equals(key)).toBe(true);
    expect(fs.readFileSync(file, 'utf8').startsWith('safestorage:v1:')).toBe(true);
    if (posix) expect(mode(file)).toBe(0o600);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['master.key']);
    expect(new SafeStorageMasterKeyStore(file, new FakeSafeStorage(true)).load()?.equals(key)).toBe(true);
  });

  it('leaves the plain file alone when the keychain gives back something else', () => {
    const file = keyFile();
    const key = randomBytes(32);
    new FileMasterKeyStore(file).save(key);
    const broken = new FakeSafeStorage(true);
    broken.decryptString = () => randomBytes(32).toString('base64');

    expect(() => new SafeStorageMasterKeyStore(file, broken).load()).toThrow('did not give back the master key');
    expect(new FileMasterKeyStore(file).load()?.equals(key)).toBe(true);
  });

  it('says so when the keychain cannot decrypt the key', () => {
    const file = keyFile();
    loadOrCreateMasterKey(new SafeStorageMasterKeyStore(file, new FakeSafeStorage(true)));
    const other = new FakeSafeStorage(true);
    other.decryptString = () => {
      throw new Error('Error while decrypting the ciphertext');
    };

    expect(() => new SafeStorageMasterKeyStore(file, other).load()).toThrow('the keychain could not decrypt the master key');
  });

  it('never overwrites a key that appeared meanwhile', () => {
    const file = keyFile();
    const store = new SafeStorageMasterKeyStore(file, new FakeSafeStorage(true));
    store.save(randomBytes(32));
    expect(() => store.save(randomBytes(32))).toThrow(expect.objectContaining({ code: 'EEXIST' }));
  });

  it('finds no key in an empty folder', () => {
    expect(new SafeStorageMasterKeyStore(keyFile(), new FakeSafeStorage(true)).load()).toBeNull();
  });
});
