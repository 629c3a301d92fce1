import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { pipeline, Transform } from 'node:stream';
import path from 'node:path';
import type { NextFunction, Request, Response } from 'express';
import multer, { MulterError, type StorageEngine } from 'multer';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { TEMP_PREFIX, tempDir } from '../files/temp.js';

export type { UploadedFile } from '../files/temp.js';
import { randomToken } from '../ids.js';

/**
 * Streams the upload to a temporary file, hashing it on the way: no second read, no memory copy.
 * Whatever ends the stream early (the client going away, a malformed body, the size limit) ends
 * the write too and removes the partial file, so nothing is left in DATA_DIR/tmp.
 */
class HashingDiskStorage implements StorageEngine {
  constructor(private readonly dir: string) {}

  _handleFile(_req: Request, file: Express.Multer.File, callback: (error?: unknown, info?: Partial<Express.Multer.File> & { sha256?: string }) => void): void {
    fs.mkdirSync(this.dir, { recursive: true });
    const target = path.join(this.dir, `${TEMP_PREFIX}${randomToken(16)}`);
    const hash = createHash('sha256');
    let size = 0;
    const measure = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    });
    pipeline(file.stream, measure, fs.createWriteStream(target, { mode: 0o600 }), (error) => {
      if (!error) return callback(null, { path: target, size, sha256: hash.digest('hex') });
      fs.rm(target, { force: true }, () => callback(error));
    });
  }

  _removeFile(_req: Request, file: Express.Multer.File, callback: (error: Error | null) => void): void {
    fs.rm(file.path, { force: true }, () => callback(null));
  }
}

const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

const malformed = (message: string) =>
  new AppError('validation_error', `The multipart body is malformed: ${message}`, { details: [{ path: 'file', message }] });

/**
 * One multipart field, `file`, at most `maxBytes`: the limit is enforced while streaming (the
 * upload is cut off, not buffered) and answered `422 file_too_large`.
 */
export function receiveUpload(ctx: AppContext, maxBytes: number) {
  const options: multer.Options & { defParamCharset: string } = {
    storage: new HashingDiskStorage(tempDir(ctx.config.dataDir)),
    limits: { fileSize: maxBytes, files: 1, fields: 0, parts: 1 },
    // Browsers and curl send a file name's UTF-8 bytes as they are; busboy would read them as
    // Latin-1. Multer 2 passes this on to busboy; its type definitions do not list it yet.
    defParamCharset: 'utf8',
  };
  const upload = multer(options).single('file');

  return (req: Request, res: Response, next: NextFunction): void => {
    upload(req, res, (error: unknown) => {
      if (error instanceof MulterError) {
        if (error.code === 'LIMIT_FILE_SIZE') {
          return next(new AppError('file_too_large', `The file is larger than ${Math.round(maxBytes / 1024 / 1024)} MB.`));
        }
        return next(new AppError('validation_error', 'Send one multipart field named "file".', { details: [{ path: 'file', message: error.message }] }));
      }
      // Busboy's parse errors ("Malformed part header", "Unexpected end of form", no boundary, …):
      // the client's body, not our failure. Any partial file is already removed.
      const systemError = (error as NodeJS.ErrnoException | undefined)?.errno !== undefined;
      if (error instanceof Error && !(error instanceof AppError) && !systemError) return next(malformed(error.message));
      if (error) return next(error);
      const file = req.file as (Express.Multer.File & { sha256?: string }) | undefined;
      if (!file || !file.sha256) {
        return next(new AppError('validation_error', 'Send one multipart field named "file".', { details: [{ path: 'file', message: 'Required.' }] }));
      }
      if (CONTROL_CHARACTERS.test(file.originalname)) {
        fs.rm(file.path, { force: true }, () => next(malformed('the file name holds control characters.')));
        return;
      }
      req.uploadedFile = { path: file.path, name: file.originalname, contentType: file.mimetype, size: file.size, sha256: file.sha256 };
      next();
    });
  };
}
