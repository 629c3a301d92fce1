import { createCipheriv, createDecipheriv, createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors.js';

/**
 * The recovery kit: the 32-byte master key sealed with a passphrase, so it can leave the computer
 * (a keychain-sealed key cannot) and be imported on another one. A versioned JSON file
 * (docs/install.md#the-recovery-kit):
 *
 *   { format: "campusbridge-recovery-kit", version: 1, created_at, key_fingerprint,
 *     kdf: { name: "scrypt", N, r, p, salt }, cipher: { name: "aes-256-gcm", nonce, tag }, sealed_key }
 *
 * scrypt (N = 2^17, r = 8, p = 1: 128 MiB, about half a second) turns the passphrase into an
 * AES-256-GCM key; the header is the cipher's associated data, so altering any field (the
 * parameters included) fails like a wrong passphrase. salt, nonce, tag and sealed_key are base64.
 */

export const RECOVERY_KIT_FORMAT = 'campusbridge-recovery-kit';
export const RECOVERY_KIT_VERSION = 1;
export const MIN_PASSPHRASE_LENGTH = 12;

interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

const DEFAULT_PARAMS: ScryptParams = { N: 2 ** 17, r: 8, p: 1 };

export interface RecoveryKit {
  format: typeof RECOVERY_KIT_FORMAT;
  version: typeof RECOVERY_KIT_VERSION;
  created_at: string;
  /** Names the key without revealing it: compare kits and installations. */
  key_fingerprint: string;
  kdf: { name: 'scrypt'; salt: string } & ScryptParams;
  cipher: { name: 'aes-256-gcm'; nonce: string; tag: string };
  sealed_key: string;
}

type KitHeader = Pick<RecoveryKit, 'format' | 'version' | 'created_at' | 'key_fingerprint' | 'kdf'>;

/** `sha256:` and the first 16 hex digits of SHA-256 over a label and the key. */
export function keyFingerprint(key: Buffer): string {
  return `sha256:${createHash('sha256').update('campusbridge master key fingerprint\0').update(key).digest('hex').slice(0, 16)}`;
}

export function checkPassphrase(passphrase: string): void {
  if ([...passphrase].length < MIN_PASSPHRASE_LENGTH) {
    throw new AppError('validation_error', `The recovery kit's passphrase must be at least ${MIN_PASSPHRASE_LENGTH} characters long.`);
  }
}

/** Seals the master key with the passphrase (at least MIN_PASSPHRASE_LENGTH characters). */
export async function sealRecoveryKit(
  masterKey: Buffer,
  passphrase: string,
  at: Date = new Date(),
  params: ScryptParams = DEFAULT_PARAMS,
): Promise<RecoveryKit> {
  checkPassphrase(passphrase);
  if (masterKey.length !== 32) throw new Error('the master key must be 32 bytes');
  const salt = randomBytes(16);
  const nonce = randomBytes(12);
  const header: KitHeader = {
    format: RECOVERY_KIT_FORMAT,
    version: RECOVERY_KIT_VERSION,
    created_at: at.toISOString(),
    key_fingerprint: keyFingerprint(masterKey),
    kdf: { name: 'scrypt', ...params, salt: salt.toString('base64') },
  };
  const cipher = createCipheriv('aes-256-gcm', await deriveKey(passphrase, salt, params), nonce);
  cipher.setAAD(associatedData(header));
  const sealed = Buffer.concat([cipher.update(masterKey), cipher.final()]);
  return {
    ...header,
    cipher: { name: 'aes-256-gcm', nonce: nonce.toString('base64'), tag: cipher.getAuthTag().toString('base64') },
    sealed_key: sealed.toString('base64'),
  };
}

/** The master key in a kit's text; validation_error for anything that is not a kit, or a passphrase that does not open it. */
export async function openRecoveryKit(text: string, passphrase: string): Promise<Buffer> {
  const kit = parseRecoveryKit(text);
  const notOpened = new AppError('validation_error', 'The passphrase does not open this recovery kit (or the file was altered); nothing was imported.');
  const decipher = createDecipheriv(
    'aes-256-gcm',
    await deriveKey(passphrase, Buffer.from(kit.kdf.salt, 'base64'), kit.kdf),
    Buffer.from(kit.cipher.nonce, 'base64'),
  );
  decipher.setAAD(associatedData(kit));
  decipher.setAuthTag(Buffer.from(kit.cipher.tag, 'base64'));
  let key: Buffer;
  try {
    key = Buffer.concat([decipher.update(Buffer.from(kit.sealed_key, 'base64')), decipher.final()]);
  } catch {
    throw notOpened;
  }
  const fingerprint = Buffer.from(keyFingerprint(key));
  if (key.length !== 32 || fingerprint.length !== kit.key_fingerprint.length || !timingSafeEqual(fingerprint, Buffer.from(kit.key_fingerprint)))
    throw notOpened;
  return key;
}

/** A kit's fields, checked: the format, the version this code reads, and scrypt parameters within bounds (a crafted file cannot ask for gigabytes). */
export function parseRecoveryKit(text: string): RecoveryKit {
  const refuse = (why: string) => new AppError('validation_error', `This is not a CampusBridge recovery kit: ${why}.`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw refuse('it is not JSON');
  }
  const kit = value as Partial<RecoveryKit> | null;
  if (!kit || typeof kit !== 'object' || kit.format !== RECOVERY_KIT_FORMAT) throw refuse(`its "format" is not "${RECOVERY_KIT_FORMAT}"`);
  if (kit.version !== RECOVERY_KIT_VERSION)
    throw refuse(`version ${String(kit.version)} is not one this CampusBridge reads (${RECOVERY_KIT_VERSION}); use a newer CampusBridge`);
  const { kdf, cipher } = kit;
  const isText = (field: unknown) => typeof field === 'string' && field.length > 0 && field.length <= 200;
  if (!kdf || kdf.name !== 'scrypt' || !isText(kdf.salt)) throw refuse('its "kdf" is not scrypt with a salt');
  const powerOfTwo = Number.isInteger(kdf.N) && kdf.N >= 2 ** 14 && kdf.N <= 2 ** 20 && (kdf.N & (kdf.N - 1)) === 0;
  if (!powerOfTwo || !Number.isInteger(kdf.r) || kdf.r < 1 || kdf.r > 16 || !Number.isInteger(kdf.p) || kdf.p < 1 || kdf.p > 4) {
    throw refuse('its scrypt parameters are out of range');
  }
  if (!cipher || cipher.name !== 'aes-256-gcm' || !isText(cipher.nonce) || !isText(cipher.tag))
    throw refuse('its "cipher" is not aes-256-gcm with a nonce and tag');
  if (!isText(kit.sealed_key) || !isText(kit.key_fingerprint) || !isText(kit.created_at)) throw refuse('a field is missing');
  return kit as RecoveryKit;
}

/** The header every kit authenticates, in a fixed order whatever the order of the file's fields. */
function associatedData(header: KitHeader): Buffer {
  const { format, version, created_at, key_fingerprint, kdf } = header;
  return Buffer.from(JSON.stringify([format, version, created_at, key_fingerprint, kdf.name, kdf.N, kdf.r, kdf.p, kdf.salt]));
}

function deriveKey(passphrase: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(
      passphrase.normalize('NFC'),
      salt,
      32,
      { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r + 16 * 1024 * 1024 },
      (error, key) => (error ? reject(error) : resolve(key)),
    ),
  );
}
