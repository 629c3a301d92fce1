import fs from 'node:fs';
import path from 'node:path';
import type { MasterKeyStore } from '../../crypto/master-key.js';
import { keyFingerprint, openRecoveryKit, sealRecoveryKit } from '../../crypto/recovery-kit.js';
import { ensurePostgresNotInUse } from '../../db/postgres.js';
import { ensureNotInUse } from '../../db/sqlite-file.js';
import { AppError } from '../../errors.js';

/** `campusbridge-recovery-kit-20261121T101500Z.json` */
export const recoveryKitFileName = (at: Date) =>
  `campusbridge-recovery-kit-${at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z')}.json`;

/** The master key as a recovery kit's text (JSON), sealed with the passphrase. */
export async function recoveryKitText(store: MasterKeyStore, passphrase: string, at: Date = new Date()): Promise<string> {
  let key: Buffer | null;
  try {
    key = store.load();
  } catch (error) {
    // A key sealed by the desktop's keychain, read by the headless command line.
    throw new AppError(
      'conflict',
      `${error instanceof Error ? error.message : String(error)}. The desktop app exports it: CampusBridge --cli recovery-kit export --out <file>.`,
    );
  }
  if (!key) throw new AppError('not_found', 'This data folder has no master key yet: start CampusBridge once (or import a recovery kit) first.');
  return `${JSON.stringify(await sealRecoveryKit(key, passphrase, at), null, 2)}\n`;
}

/**
 * `recovery-kit export --out <file>`: the kit written to `out` (a folder gets the usual name),
 * complete under a temporary name before the rename, readable by its owner only. Returns the path.
 */
export async function exportRecoveryKit(store: MasterKeyStore, out: string, passphrase: string, at: Date = new Date()): Promise<string> {
  let file = path.resolve(out);
  if (fs.statSync(file, { throwIfNoEntry: false })?.isDirectory()) file = path.join(file, recoveryKitFileName(at));
  if (!fs.statSync(path.dirname(file), { throwIfNoEntry: false })?.isDirectory()) {
    throw new AppError('not_found', `No folder ${path.dirname(file)} to write the recovery kit into.`);
  }
  const text = await recoveryKitText(store, passphrase, at);
  const partial = `${file}.partial`;
  try {
    fs.writeFileSync(partial, text, { mode: 0o600 });
    fs.renameSync(partial, file);
  } finally {
    fs.rmSync(partial, { force: true });
  }
  return file;
}

export interface ImportTarget {
  store: MasterKeyStore;
  /** The file the store keeps the key in (DATA_DIR/master.key). */
  keyFile: string;
  databaseFile: string;
  /** The PostgreSQL database when DATABASE_URL names one: then it is that database that must not be open. */
  postgresUrl?: string | null;
}

export interface ImportResult {
  /** Where the different key that was in place went, or null when there was none (or it was the same). */
  previous_key: string | null;
  key_fingerprint: string;
}

/**
 * `recovery-kit import <file>`: only while nothing has the database open (conflict otherwise),
 * since a running appliance would go on with the key it loaded. A different key already in place
 * is renamed to `master.key.before-import-<UTC time>` first (it is never overwritten), and put
 * back if the new one cannot be stored.
 */
export async function importRecoveryKit(target: ImportTarget, kitFile: string, passphrase: string, at: Date = new Date()): Promise<ImportResult> {
  const source = path.resolve(kitFile);
  if (!fs.statSync(source, { throwIfNoEntry: false })?.isFile()) throw new AppError('not_found', `No file at ${source}.`);
  if (target.postgresUrl) await ensurePostgresNotInUse(target.postgresUrl, 'import the recovery kit');
  else await ensureNotInUse(target.databaseFile, 'import the recovery kit');
  const key = await openRecoveryKit(fs.readFileSync(source, 'utf8'), passphrase);
  const fingerprint = keyFingerprint(key);

  let current: Buffer | null;
  try {
    current = target.store.load();
  } catch {
    // A key this program cannot read (sealed by another computer's keychain): kept aside like any other.
    current = fs.existsSync(target.keyFile) ? Buffer.alloc(0) : null;
  }
  if (current?.equals(key)) return { previous_key: null, key_fingerprint: fingerprint };

  let previous: string | null = null;
  if (current !== null || fs.existsSync(target.keyFile)) {
    previous = `${target.keyFile}.before-import-${at.toISOString().replace(/[-:]/g, '')}`;
    if (fs.existsSync(previous)) throw new AppError('conflict', `${previous} already exists; try again.`);
    fs.renameSync(target.keyFile, previous);
  }
  try {
    fs.mkdirSync(path.dirname(target.keyFile), { recursive: true });
    target.store.save(key);
    if (!target.store.load()?.equals(key)) throw new Error('the stored key does not read back');
  } catch (error) {
    fs.rmSync(target.keyFile, { force: true });
    if (previous) fs.renameSync(previous, target.keyFile);
    throw error;
  }
  return { previous_key: previous, key_fingerprint: fingerprint };
}
