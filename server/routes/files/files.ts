import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import { studentMayOpenArchive } from '../../commands/exams/archives.js';
import { AppError } from '../../errors.js';
import { absolutePath, verifyFileSignature } from '../../files/storage.js';
import { defineRoute, RawResponse } from '../../http/route.js';
import { z } from '../../validation/zod.js';

const fileParams = z.strictObject({
  ref: z.string().min(1).max(320).openapi({ description: 'The file ref, as in the link.', example: 'file_8Hn3pQ6xKw1Pz5Rb2Tm9Vc7Y' }),
});

// Both optional: a link missing either is answered like any other bad link (404), not with a 422 that tells them apart.
const fileQuery = z.strictObject({
  expires: z.string().optional().openapi({ description: 'Unix seconds, from the signed link.', example: '1789380900' }),
  signature: z.string().optional().openapi({ description: 'From the signed link.', example: '5d41402abc4b2a76b9719d911017c592…' }),
  student: z
    .string()
    .max(40)
    .optional()
    .openapi({ description: "On a student's link to an exam archive: the student it was made for.", example: 'stu_9Kq2Lm4Np6Rs8Tv0Wx3Yz5Ab' }),
});

/** One answer for every link that does not open a file: unknown, tampered, expired, another file's signature. */
const badLink = () => new AppError('not_found', 'No such file, or the link has expired. Read the submission again for a fresh link.');

const TOKEN = '[\\w!#$&^.+-]+';
const SAFE_CONTENT_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(?:\\s*;\\s*${TOKEN}=(?:${TOKEN}|"[^"\\\\\\r\\n]*"))*$`);

/** The stored type when it is a well-formed media type (it came from the uploader); otherwise a neutral one. */
export function safeContentType(stored: string): string {
  return SAFE_CONTENT_TYPE.test(stored) ? stored : 'application/octet-stream';
}

/**
 * `attachment` with a quoted ASCII fallback (quotes, backslashes, separators, control and non-ASCII
 * characters replaced) and the exact name as RFC 5987 `filename*`, so no name can break the header.
 */
export function attachmentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\/%;]/g, '_').trim() || 'download';
  const exact = encodeURIComponent(name || 'download').replace(/['()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${exact}`;
}

const isClientGone = (error: unknown, res: Response) => res.destroyed || (error as NodeJS.ErrnoException | undefined)?.code === 'ERR_STREAM_PREMATURE_CLOSE';

export const fileRoutes = [
  defineRoute({
    caller: 'anyone',
    method: 'get',
    path: '/files/{ref}',
    operationId: 'downloadFile',
    summary: 'Download a file through a signed link',
    description:
      "The `url` of a submission attachment or recording, or of a coding exam's archive. Needs no key: the signature authorizes this one file until `expires` (at most 15 minutes). " +
      'An unknown file, a tampered or expired signature, or a signature made for another file all answer `404 not_found`. ' +
      "A student's archive link (with `student`) also needs that student's open attempt of the exam: once it is submitted or its time is over, `404 not_found`. " +
      "The body is the file's bytes, sent as an attachment (`Cache-Control: private, no-store`).",
    tag: 'Submissions',
    params: fileParams,
    query: fileQuery,
    produces: 'application/octet-stream',
    response: z.string().openapi({ type: 'string', format: 'binary', description: 'The file, as uploaded.' }),
    errors: ['not_found', 'file_missing'],
    handler: async ({ params, query, ctx }) => {
      // The signature is checked before any lookup, so a bad link learns nothing about which files exist.
      const expires = query.expires !== undefined && /^\d{1,12}$/.test(query.expires) ? Number(query.expires) : Number.NaN;
      const holder = query.student === undefined ? {} : { studentId: query.student };
      if (!query.signature || !verifyFileSignature(ctx.db, params.ref, expires, query.signature, Date.now(), holder)) throw badLink();

      const { StoredFile, Institution } = ctx.db.models;
      const file = await StoredFile.findByPk(params.ref);
      if (!file) throw badLink();
      // Links of an institution that is no longer approved stop working with its keys.
      const institution = await Institution.findByPk(file.institution_id, { attributes: ['id', 'status'] });
      if (institution?.status !== 'approved') throw badLink();
      if (holder.studentId !== undefined && !(await studentMayOpenArchive(ctx.db, file, holder.studentId))) throw badLink();

      const dataDir = path.resolve(ctx.config.dataDir);
      const location = path.resolve(absolutePath(dataDir, file));
      if (!location.startsWith(dataDir + path.sep)) throw new Error(`stored file ${file.id} points outside the data folder`);
      // Opened before anything is sent, so a file missing on disk is answered in words before headers go out.
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

      return new RawResponse(async (res) => {
        res.status(200);
        res.setHeader('Content-Type', safeContentType(file.content_type));
        res.setHeader('Content-Length', String(size));
        res.setHeader('Content-Disposition', attachmentDisposition(file.name));
        res.setHeader('X-Content-Type-Options', 'nosniff');
        res.setHeader('Cache-Control', 'private, no-store');
        // Never rendered as a page of this origin, whatever the uploader claimed it was.
        res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
        try {
          await pipeline(handle.createReadStream(), res);
        } catch (error) {
          if (!isClientGone(error, res)) throw error;
        }
      });
    },
  }),
];
