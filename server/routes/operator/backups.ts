import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import { recoveryKitFileName, recoveryKitText } from '../../commands/appliance/recovery-kit.js';
import type { AppContext } from '../../context.js';
import { FileMasterKeyStore, masterKeyFile } from '../../crypto/master-key.js';
import { MIN_PASSPHRASE_LENGTH } from '../../crypto/recovery-kit.js';
import { BACKUP_NAME, backupNow, backupsDir, findBackup, listBackups, type BackupFile } from '../../db/backup.js';
import { cancelPendingRestore, readPendingRestore, stageRestore } from '../../db/restore.js';
import { AppError } from '../../errors.js';
import { uploadsRoot } from '../../files/storage.js';
import { defineRoute, RawResponse, type AnyPortalRoute } from '../../http/route.js';
import { z } from '../../validation/zod.js';
import { attachmentDisposition } from '../files/files.js';

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

export const backupSchema = z.object({
  name: z.string().openapi({ example: 'campusbridge-20261121T101500.000Z-manual.sqlite' }),
  created_at: z.string(),
  size_bytes: z.number().int(),
  /** `before-migration`: taken before an upgrade; `other`: a .sqlite file put in the folder by hand. */
  reason: z.enum(['manual', 'daily', 'before-migration', 'before-restore', 'other']),
});

export const pendingRestoreSchema = z.object({ source: z.string(), staged_at: z.string() }).nullable();

export const backupListSchema = z.object({
  items: z.array(backupSchema),
  /** The folder they are in (DATA_DIR/backups): copy a backup from another computer there to restore it from this page. */
  folder: z.string(),
  /** A restore chosen here, applied by the next start. */
  pending_restore: pendingRestoreSchema,
  /** Whether this appliance can restart itself (headless `npm start`); otherwise quit and start CampusBridge. */
  restart_available: z.boolean(),
});

/** The kit file's suggested name and its text (JSON, docs/install.md#the-recovery-kit). */
export const recoveryKitSchema = z.object({ file_name: z.string(), content: z.string() });

export const restoreAnswerSchema = z.object({ pending_restore: pendingRestoreSchema, restarting: z.boolean() });

const backupParams = z.strictObject({
  name: z.string().regex(BACKUP_NAME, 'a backup file name from the list (…\u200b.sqlite)'),
});
const restoreBody = z.strictObject({
  restart: z.boolean().default(false).describe('restart now to apply it (when `restart_available`); otherwise it waits for the next start'),
});
const recoveryKitBody = z.strictObject({
  passphrase: z.string().min(MIN_PASSPHRASE_LENGTH).max(1024).describe('seals the master key; needed to import the kit'),
});

const presentBackup = (backup: BackupFile): z.input<typeof backupSchema> => ({
  name: backup.name,
  created_at: backup.created_at.toISOString(),
  size_bytes: backup.size_bytes,
  reason: backup.reason,
});

/** Restarts after the answer has gone out, so the browser hears it before the server stops. */
function restartAfter(res: Response, ctx: AppContext): boolean {
  const restart = ctx.requestRestart;
  if (!restart) return false;
  res.once('finish', () => restart());
  return true;
}

// ---------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------

/**
 * Backups and restore for the appliance's operator (docs/install.md#4-backups). A restore is
 * never done under the running server: the chosen backup is verified and staged, and the next
 * start puts it in place before the database opens, keeping the replaced database as a
 * before-restore copy. Files from elsewhere are restored with `cli restore <file>`, or copied
 * into the backups folder first (there is no upload here).
 */
export const backupRoutes: AnyPortalRoute[] = [
  defineRoute({
    method: 'get',
    path: '/operator/backups',
    operationId: 'listBackups',
    tag: 'Operator',
    summary: 'The backups in DATA_DIR/backups, newest first, and the restore waiting for the next start',
    caller: 'operator',
    response: backupListSchema,
    handler: async ({ ctx }) => ({
      items: listBackups(ctx.config.databaseFile).map(presentBackup),
      folder: backupsDir(ctx.config.databaseFile),
      pending_restore: readPendingRestore(ctx.config.databaseFile),
      restart_available: ctx.requestRestart !== undefined,
    }),
  }),
  defineRoute({
    method: 'post',
    path: '/operator/backups',
    operationId: 'createBackup',
    tag: 'Operator',
    summary: 'Back up now: the database (an online copy; the appliance keeps running) and every uploaded file, in one file',
    caller: 'operator',
    response: backupSchema,
    handler: async ({ ctx }) => {
      const made = await backupNow({ databaseFile: ctx.config.databaseFile, uploadsDir: uploadsRoot(ctx.config.dataDir) });
      return presentBackup(findBackup(ctx.config.databaseFile, path.basename(made.file)));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/operator/backups/{name}/download',
    operationId: 'downloadBackup',
    tag: 'Operator',
    summary: 'Download one backup (a SQLite file holding the database and the uploaded files; not the master key)',
    caller: 'operator',
    params: backupParams,
    produces: 'application/vnd.sqlite3',
    response: z.string().openapi({ type: 'string', format: 'binary', description: 'The backup file.' }),
    errors: ['not_found'],
    handler: async ({ ctx, params }) => {
      const backup = findBackup(ctx.config.databaseFile, params.name);
      const handle = await fs.promises.open(backup.file, 'r');
      const size = (
        await handle.stat().catch(async (error: unknown) => {
          await handle.close();
          throw error;
        })
      ).size;
      return new RawResponse(async (res) => {
        res.status(200);
        res.setHeader('Content-Type', 'application/vnd.sqlite3');
        res.setHeader('Content-Length', String(size));
        res.setHeader('Content-Disposition', attachmentDisposition(backup.name));
        res.setHeader('Cache-Control', 'private, no-store');
        try {
          await pipeline(handle.createReadStream(), res);
        } catch (error) {
          if (!res.destroyed) throw error;
        }
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/operator/backups/{name}/restore',
    operationId: 'restoreBackup',
    tag: 'Operator',
    summary: 'Choose a backup to restore: verified now, put in place by the next start (with `restart`, at once)',
    description:
      'The backup is checked (an intact CampusBridge database this version can run, and every uploaded file it holds against its checksum) and staged; ' +
      'the running database is not touched. The next start replaces the database and the uploaded files with it, keeping the current ones as a `before-restore` backup. ' +
      'With `restart: true` and `restart_available`, the appliance restarts right after answering. Choosing again replaces the choice.',
    caller: 'operator',
    params: backupParams,
    body: restoreBody,
    response: restoreAnswerSchema,
    errors: ['not_found'],
    handler: async ({ ctx, params, body, res }) => {
      const backup = findBackup(ctx.config.databaseFile, params.name);
      const pending = await stageRestore(ctx.config.databaseFile, backup.file, backup.name);
      return { pending_restore: pending, restarting: body.restart && restartAfter(res, ctx) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/operator/pending-restore',
    operationId: 'cancelPendingRestore',
    tag: 'Operator',
    summary: 'Forget the restore chosen for the next start',
    caller: 'operator',
    response: z.object({ cancelled: z.boolean() }),
    handler: async ({ ctx }) => ({ cancelled: cancelPendingRestore(ctx.config.databaseFile) }),
  }),
  defineRoute({
    method: 'post',
    path: '/operator/restart',
    operationId: 'restartAppliance',
    tag: 'Operator',
    summary: 'Restart the appliance (applies a pending restore); only where it can restart itself',
    caller: 'operator',
    response: z.object({ restarting: z.literal(true) }),
    errors: ['conflict'],
    handler: async ({ ctx, res }) => {
      if (!restartAfter(res, ctx)) {
        throw new AppError(
          'conflict',
          'This CampusBridge cannot restart itself: quit it and start it again (tray icon → Quit CampusBridge, or restart the service).',
        );
      }
      return { restarting: true as const };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/operator/recovery-kit',
    operationId: 'downloadRecoveryKit',
    tag: 'Operator',
    summary: 'The recovery kit: the master key sealed with the passphrase given, for the browser to save as a file',
    description:
      'The same file as `cli recovery-kit export`. Keep it apart from the backups, and the passphrase apart from both: together they open every encrypted field. ' +
      'Over plain `http://` the passphrase crosses the network readable; do this on the appliance computer itself, or behind HTTPS.',
    caller: 'operator',
    body: recoveryKitBody,
    response: recoveryKitSchema,
    errors: ['not_found'],
    handler: async ({ ctx, body }) => {
      const store = ctx.masterKeyStore ?? new FileMasterKeyStore(masterKeyFile(path.dirname(ctx.config.databaseFile)));
      const at = new Date();
      return { file_name: recoveryKitFileName(at), content: await recoveryKitText(store, body.passphrase, at) };
    },
  }),
];
