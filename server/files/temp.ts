import fs from 'node:fs';
import path from 'node:path';

/** Uploads are received here, then moved into storage or removed. */
export const tempDir = (dataDir: string) => path.join(dataDir, 'tmp');

/** Temporary upload files are named so; nothing else in the folder is touched by the sweep. */
export const TEMP_PREFIX = 'upload-';

/** An upload still being received writes to its file continuously; an hour without a write is abandoned. */
export const STALE_TEMP_MS = 60 * 60 * 1000;

/**
 * Removes temporary upload files not written to for `olderThanMs` (0: all of them, as at
 * start-up, when no upload of this process can be in flight). Returns how many went.
 */
export async function sweepTempFiles(dataDir: string, olderThanMs: number, now = Date.now()): Promise<number> {
  const dir = tempDir(dataDir);
  let names: string[];
  try {
    names = await fs.promises.readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  let removed = 0;
  for (const name of names) {
    if (!name.startsWith(TEMP_PREFIX)) continue;
    const file = path.join(dir, name);
    const stat = await fs.promises.stat(file).catch(() => null);
    if (!stat?.isFile() || now - stat.mtimeMs < olderThanMs) continue;
    await fs.promises.rm(file, { force: true });
    removed += 1;
  }
  return removed;
}

/** A file received from a client, in the temp folder until a command moves it into storage (or it is removed). */
export interface UploadedFile {
  /** Temporary path under DATA_DIR/tmp; the handler moves it into storage or it is removed. */
  path: string;
  name: string;
  contentType: string;
  size: number;
  sha256: string;
}
