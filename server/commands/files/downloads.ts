import fs from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../../context.js';
import { AppError } from '../../errors.js';
import { absolutePath, verifyFileSignature } from '../../files/storage.js';
import type { StoredFileRow } from '../../models/stored-file.js';
import { studentMayOpenArchive } from '../exams/archives.js';

/** What a signed link carries besides the file ref, as it came (each part may be missing). */
export interface SignedLink {
  expires?: string | undefined;
  signature?: string | undefined;
  student?: string | undefined;
}

/** A file a link opened: its row, and its bytes open for reading, `size` long. The caller closes `handle`. */
export interface OpenedFile {
  file: StoredFileRow;
  handle: fs.promises.FileHandle;
  size: number;
}

/** One answer for every link that does not open a file: unknown, tampered, expired, another file's signature. */
const badLink = () => new AppError('not_found', 'No such file, or the link has expired. Read the submission again for a fresh link.');

/**
 * The file a signed link opens, opened before anything is sent so that a file missing on disk is
 * answered in words. The signature is checked before any lookup, so a bad link learns nothing
 * about which files exist.
 */
export async function openSignedFile(ctx: AppContext, ref: string, link: SignedLink): Promise<OpenedFile> {
  const expires = link.expires !== undefined && /^\d{1,12}$/.test(link.expires) ? Number(link.expires) : Number.NaN;
  const holder = link.student === undefined ? {} : { studentId: link.student };
  if (!link.signature || !verifyFileSignature(ctx.db, ref, expires, link.signature, Date.now(), holder)) throw badLink();

  const { StoredFile, Institution } = ctx.db.models;
  const file = await StoredFile.findByPk(ref);
  if (!file) throw badLink();
  // Links of an institution that is no longer approved stop working with its keys.
  const institution = await Institution.findByPk(file.institution_id, { attributes: ['id', 'status'] });
  if (institution?.status !== 'approved') throw badLink();
  if (holder.studentId !== undefined && !(await studentMayOpenArchive(ctx.db, file, holder.studentId))) throw badLink();

  const dataDir = path.resolve(ctx.config.dataDir);
  const location = path.resolve(absolutePath(dataDir, file));
  if (!location.startsWith(dataDir + path.sep)) throw new Error(`stored file ${file.id} points outside the data folder`);
  const handle = await fs.promises.open(location, 'r').catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
    ctx.logger.warn({ file: file.id, institution: file.institution_id }, 'stored file missing from the data folder');
    throw new AppError(
      'file_missing',
      `The file "${file.name}" is recorded but no longer in this appliance's data folder (uploads/). Upload it again, or restore a backup that holds it.`,
    );
  });
  let size: number;
  try {
    size = (await handle.stat()).size;
  } catch (error) {
    await handle.close();
    throw error;
  }
  return { file, handle, size };
}
