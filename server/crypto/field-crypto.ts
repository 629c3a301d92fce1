import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/**
 * Encryption of sensitive fields at rest (AES-256-GCM) and blind indexes for looking them up
 * (HMAC-SHA256), each with its own key derived from the master key.
 */
export class FieldCrypto {
  private readonly encryptionKey: Buffer;
  private readonly indexKey: Buffer;
  private readonly signingKey: Buffer;

  constructor(masterKey: Buffer) {
    this.encryptionKey = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'campusbridge field encryption', 32));
    this.indexKey = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'campusbridge blind index', 32));
    this.signingKey = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'campusbridge link signing', 32));
  }

  /** `v1.<iv>.<tag>.<ciphertext>`, base64url parts; `context` binds the value to its column. */
  encrypt(plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.encryptionKey, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
  }

  decrypt(sealed: string, context: string): string {
    const [version, iv, tag, ciphertext] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || ciphertext === undefined) throw new Error('unrecognised sealed value');
    const decipher = createDecipheriv('aes-256-gcm', this.encryptionKey, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** Deterministic keyed hash for equality lookups without storing the value. */
  blindIndex(value: string, context: string): string {
    return createHmac('sha256', this.indexKey).update(`${context}\u0000${value}`, 'utf8').digest('hex');
  }

  /** HMAC-SHA256 for signed links (attachment URLs); hex. */
  sign(value: string, context: string): string {
    return createHmac('sha256', this.signingKey).update(`${context}\u0000${value}`, 'utf8').digest('hex');
  }
}
