import { timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Database } from '../db/index.js';
import type { TenantTx } from '../db/tenant.js';
import type { UploadedFile } from './temp.js';
import { newId } from '../ids.js';
import type { FileKind, FileOwnerType, StoredFileRow } from '../models/stored-file.js';

export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
/** Signed attachment links live at most this long (docs/api.md#limits: 15 minutes). */
export const LINK_TTL_SECONDS = 15 * 60;
const LINK_CONTEXT = 'stored_files.download';

export const uploadsRoot = (dataDir: string) => path.join(dataDir, 'uploads');

export function absolutePath(dataDir: string, file: StoredFileRow): string {
  return path.join(dataDir, file.storage_path);
}

/**
 * Moves an upload from its temporary place into DATA_DIR/uploads/<institution>/<ref> and records
 * it in the caller's transaction. Should that transaction roll back later, the file stays on disk
 * without a row: nothing can reach it, and no row ever points at a missing file.
 */
export async function storeUpload(
  tx: TenantTx,
  dataDir: string,
  upload: UploadedFile,
  owner: { type: FileOwnerType; id: string; kind: FileKind; name?: string },
): Promise<StoredFileRow> {
  const id = newId('file');
  const relative = path.join('uploads', tx.institutionId, id);
  const target = path.join(dataDir, relative);
  await fs.promises.mkdir(path.dirname(target), { recursive: true });
  await fs.promises.rename(upload.path, target);
  const row = await tx.files
    .create({
      id,
      owner_type: owner.type,
      owner_id: owner.id,
      kind: owner.kind,
      name: owner.name ?? upload.name,
      content_type: upload.contentType || 'application/octet-stream',
      size: upload.size,
      sha256: upload.sha256,
      storage_path: relative,
      created_at: new Date(),
    })
    .catch(async (error: unknown) => {
      await fs.promises.rm(target, { force: true });
      throw error;
    });
  return row;
}

/**
 * Whom a link is for. Without one it is the integration's link (an attachment, a recording, an
 * exam's archive for `exams:read`). With a student it is that student's link to an exam archive:
 * the signature covers the student, and the download also needs their open attempt.
 */
export interface LinkHolder {
  studentId?: string;
}

const signedValue = (fileId: string, expires: number, holder: LinkHolder) =>
  holder.studentId === undefined ? `${fileId}.${expires}` : `${fileId}.${expires}.${holder.studentId}`;

/** `<portal>/v1/files/<ref>?expires=<unix s>&signature=<hex>[&student=<id>]`: opens without a key until it expires. */
export function signedFileUrl(
  db: Database,
  portalUrl: string,
  file: StoredFileRow,
  now = Date.now(),
  holder: LinkHolder = {},
): { url: string; expires_at: string } {
  const expires = Math.floor(now / 1000) + LINK_TTL_SECONDS;
  const signature = db.fieldCrypto.sign(signedValue(file.id, expires, holder), LINK_CONTEXT);
  const student = holder.studentId === undefined ? '' : `&student=${encodeURIComponent(holder.studentId)}`;
  return {
    url: `${portalUrl}/v1/files/${file.id}?expires=${expires}&signature=${signature}${student}`,
    expires_at: new Date(expires * 1000).toISOString(),
  };
}

export function verifyFileSignature(db: Database, fileId: string, expires: number, signature: string, now = Date.now(), holder: LinkHolder = {}): boolean {
  if (!Number.isInteger(expires) || expires * 1000 < now || expires * 1000 > now + LINK_TTL_SECONDS * 1000 + 60_000) return false;
  const expected = Buffer.from(db.fieldCrypto.sign(signedValue(fileId, expires, holder), LINK_CONTEXT), 'hex');
  const given = Buffer.from(signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
