import { checkExamTakesFiles, hiddenKeyStatus, releaseHiddenKey, storeHiddenKey, uploadExamFile } from '../../commands/exams/coding.js';
import { validationError } from '../../errors.js';
import { MAX_UPLOAD_BYTES } from '../../files/storage.js';
import { defineRoute } from '../../http/route.js';
import type { StoredFileRow } from '../../models/stored-file.js';
import {
  codeSecretReleaseSchema,
  codeSecretStatusSchema,
  codeSecretStoredSchema,
  codingExamParams,
  examFileSchema,
  putCodeSecretBody,
} from './coding-schema.js';

const TAG = 'Exams (coding)';

const presentExamFile = (file: StoredFileRow) => ({
  ref: file.id,
  name: file.name as 'starter.zip' | 'sample-tests.zip' | 'hidden-tests.zip.enc',
  size: Number(file.size),
  sha256: file.sha256,
});

export const codingExamRoutes = [
  defineRoute({
    caller: 'key',
    method: 'post',
    path: '/exams/{id}/files',
    operationId: 'uploadExamFile',
    summary: 'Upload a coding-exam file',
    description:
      'Multipart, one field `file`, at most 50 MB (`422 file_too_large`). The name must be `starter.zip`, `sample-tests.zip` or ' +
      '`hidden-tests.zip.enc` (otherwise `422 validation_error`). Every upload is a new `ref`, even under a name uploaded before: ' +
      "refs already in the exam's `code_spec` keep working until the spec names the new one.",
    tag: TAG,
    scope: 'exams:write',
    params: codingExamParams,
    upload: { maxBytes: MAX_UPLOAD_BYTES, before: ({ tenant, params }) => checkExamTakesFiles(tenant, params.id) },
    response: examFileSchema,
    errors: ['not_found', 'file_too_large'],
    handler: async ({ tenant, params, file, ctx }) => {
      if (!file) throw validationError([{ path: 'file', message: 'Required.' }]);
      return presentExamFile(await uploadExamFile(tenant, ctx.config.dataDir, params.id, file));
    },
  }),
  defineRoute({
    caller: 'key',
    method: 'put',
    path: '/exams/{id}/code-secret',
    operationId: 'putExamCodeSecret',
    summary: 'Store the hidden-tests key',
    description:
      'Write-only custody of the AES-256 key of `hidden-tests.zip.enc`; a new key replaces the old one. The key is stored ' +
      'encrypted and never appears in a response (other than `release`), a log line or an event.',
    tag: TAG,
    scope: 'exams:write',
    params: codingExamParams,
    body: putCodeSecretBody,
    response: codeSecretStoredSchema,
    errors: ['not_found'],
    handler: async ({ tenant, params, body }) => {
      const result = await storeHiddenKey(tenant, params.id, body.hidden_key_b64);
      return { stored: result.stored, stored_at: result.stored_at.toISOString() };
    },
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/exams/{id}/code-secret/status',
    operationId: 'getExamCodeSecretStatus',
    summary: 'Whether a hidden-tests key is stored, and how many attempts received it',
    tag: TAG,
    scope: 'exams:read',
    params: codingExamParams,
    response: codeSecretStatusSchema,
    errors: ['not_found'],
    handler: async ({ tenant, params }) => {
      const status = await hiddenKeyStatus(tenant, params.id);
      return { stored: status.stored, stored_at: status.stored_at?.toISOString() ?? null, released_count: status.released_count };
    },
  }),
  defineRoute({
    caller: 'key',
    method: 'post',
    path: '/exams/{id}/code-secret/release',
    operationId: 'releaseExamCodeSecret',
    summary: 'Read the hidden-tests key back',
    description: 'For the institution itself (students receive it through their attempt). None stored: `404 no_secret`.',
    tag: TAG,
    scope: 'exams:write',
    params: codingExamParams,
    response: codeSecretReleaseSchema,
    errors: ['not_found', 'no_secret'],
    handler: async ({ tenant, params }) => releaseHiddenKey(tenant, params.id),
  }),
];
