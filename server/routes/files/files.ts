import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import { openSignedFile, type OpenedFile } from '../../commands/files/downloads.js';
import { defineRoute, RawResponse } from '../../http/route.js';
import { z } from '../../validation/zod.js';
import { fileParams, fileQuery } from './schema.js';

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

/** The opened file's bytes as a private, uncached attachment; the stream closes the handle. */
function sendFile({ file, handle, size }: OpenedFile): RawResponse {
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
}

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
    handler: async ({ params, query, ctx }) => sendFile(await openSignedFile(ctx, params.ref, query)),
  }),
];
