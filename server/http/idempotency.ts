import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { Op, UniqueConstraintError } from 'sequelize';
import stringify from 'safe-stable-stringify';
import type { Database } from '../db/index.js';
import { AppError, validationError } from '../errors.js';
import { newId } from '../ids.js';
import type { IdempotencyKeyRow } from '../models/idempotency-key.js';

/**
 * `Idempotency-Key` on the POSTs of /v1 (docs/api.md#idempotent-requests). The first request with
 * a key runs; its answer (status and JSON body) is kept 24 hours for that caller and key, and the
 * same request with the same key gets it again with `Idempotent-Replayed: true` instead of
 * running again. The same key with another request, or while the first is still running, is
 * `409 conflict`. Answers of 500 and above are not kept: nothing was written (every write is one
 * transaction), so the key is free for the retry.
 */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
/** How long an answer is kept. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A first request still marked running after this long was cut off (the process stopped while
 * running it): whether it took effect is unknown, so the key is neither replayed nor run again.
 */
export const INTERRUPTED_AFTER_MS = 5 * 60 * 1000;

/** 1 to 255 printable ASCII characters, as Stripe takes them. */
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

const sealContext = (rowId: string) => `idempotency_keys.response_sealed:${rowId}`;

/** What identifies "the same request": method, path, query and body, keys in any order; an upload by its bytes' hash and name. */
function fingerprintOf(req: Request): string {
  const file = req.uploadedFile;
  const content = file ? { file: { sha256: file.sha256, name: file.name, size: file.size } } : { body: req.body ?? null };
  const described = stringify({ method: req.method, path: req.path, query: req.query, ...content }) ?? '';
  return createHash('sha256').update(described, 'utf8').digest('hex');
}

/** Whose keys these are: the API key's, or the learner's (a student retrying across sessions). */
function subjectOf(req: Request): { subject: string; institutionId: string } | null {
  if (req.auth) return { subject: `key:${req.auth.key.id}`, institutionId: req.auth.institution.id };
  if (req.learner) return { subject: `learner:${req.learner.person.id}`, institutionId: req.learner.institution.id };
  return null;
}

const sameRequestDifferent = (row: IdempotencyKeyRow) =>
  new AppError('conflict', `This Idempotency-Key was first used for another request (${row.request} with a different body); use a new key for a new request.`);

/**
 * For a POST route of /v1, after authentication and the body (or upload) are read: replays, refuses
 * or records. Without the header, or on an operation without a caller to scope the key to, it
 * does nothing.
 */
export function idempotency(db: Database): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const key = req.get(IDEMPOTENCY_HEADER);
    if (key === undefined) return next();
    if (!KEY_PATTERN.test(key)) {
      throw validationError([{ path: 'Idempotency-Key', message: 'Must be 1 to 255 printable ASCII characters.' }]);
    }
    const caller = subjectOf(req);
    if (!caller) return next();
    const fingerprint = fingerprintOf(req);
    const row = await claimKey(db, { ...caller, key, fingerprint, request: `${req.method} ${req.baseUrl}${req.path}`.slice(0, 300) });
    if (row.kind === 'replay') {
      await removeUpload(req);
      res.set(REPLAYED_HEADER, 'true');
      res.status(row.status).json(row.body);
      return;
    }
    recordAnswer(db, req, res, row.id);
    next();
  };
}

type Claimed = { kind: 'run'; id: string } | { kind: 'replay'; status: number; body: unknown };

/** Takes the key for this request, or finds what it already holds. */
async function claimKey(db: Database, wanted: { subject: string; institutionId: string; key: string; fingerprint: string; request: string }): Promise<Claimed> {
  const { IdempotencyKey } = db.models;
  // Twice at most: once more after clearing an expired row in the way.
  for (let round = 0; round < 2; round += 1) {
    const now = new Date();
    const id = newId('idem');
    try {
      await db.sequelize.transaction((transaction) =>
        IdempotencyKey.create(
          {
            id,
            institution_id: wanted.institutionId,
            subject: wanted.subject,
            key: wanted.key,
            fingerprint: wanted.fingerprint,
            request: wanted.request,
            status: 'in_progress',
            response_status: null,
            response_sealed: null,
            created_at: now,
            expires_at: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
          },
          { transaction },
        ),
      );
      return { kind: 'run', id };
    } catch (error) {
      if (!(error instanceof UniqueConstraintError)) throw error;
    }
    const existing = await IdempotencyKey.findOne({ where: { subject: wanted.subject, key: wanted.key } });
    if (!existing) continue;
    if (existing.expires_at.getTime() <= now.getTime()) {
      await db.sequelize.transaction((transaction) => IdempotencyKey.destroy({ where: { id: existing.id, expires_at: { [Op.lte]: now } }, transaction }));
      continue;
    }
    if (existing.fingerprint !== wanted.fingerprint) throw sameRequestDifferent(existing);
    if (existing.status === 'done' && existing.response_sealed !== null && existing.response_status !== null) {
      const body: unknown = JSON.parse(db.fieldCrypto.decrypt(existing.response_sealed, sealContext(existing.id)));
      return { kind: 'replay', status: existing.response_status, body };
    }
    if (now.getTime() - existing.created_at.getTime() > INTERRUPTED_AFTER_MS) {
      throw new AppError(
        'conflict',
        'The first request with this Idempotency-Key was interrupted (the appliance stopped while running it), so whether it took effect is unknown. Check, then retry with a new key.',
      );
    }
    throw new AppError('conflict', 'A request with this Idempotency-Key is still running; retry once it has finished.');
  }
  throw new AppError('conflict', 'This Idempotency-Key is being reused right now; retry in a moment.');
}

/**
 * Keeps the answer before it is sent, so a retry that arrives the moment the client has it finds
 * it. An answer of 500 or above, or one that is not JSON (a file), frees the key instead.
 */
function recordAnswer(db: Database, req: Request, res: Response, rowId: string): void {
  const { IdempotencyKey } = db.models;
  const send = res.json.bind(res);
  let settled = false;
  res.json = (body: unknown) => {
    settled = true;
    const status = res.statusCode;
    // In a transaction like every write (on SQLite, the one write queue).
    const keep = db.sequelize.transaction(async (transaction) => {
      if (status >= 500) {
        await IdempotencyKey.destroy({ where: { id: rowId }, transaction });
        return;
      }
      const sealed = db.fieldCrypto.encrypt(JSON.stringify(body), sealContext(rowId));
      await IdempotencyKey.update({ status: 'done', response_status: status, response_sealed: sealed }, { where: { id: rowId }, transaction });
    });
    void keep
      .catch((err: unknown) => req.log?.warn({ err, request_id: req.requestId }, 'could not keep the answer of an idempotent request'))
      .then(() => send(body));
    return res;
  };
  res.on('close', () => {
    if (settled) return;
    // Answered without JSON (a stream), or not at all: nothing to replay, the key is free again.
    db.sequelize
      .transaction((transaction) => IdempotencyKey.destroy({ where: { id: rowId, status: 'in_progress' }, transaction }))
      .catch((err: unknown) => req.log?.warn({ err, request_id: req.requestId }, 'could not free an idempotency key'));
  });
}

async function removeUpload(req: Request): Promise<void> {
  if (req.uploadedFile) await fs.promises.rm(req.uploadedFile.path, { force: true });
}
