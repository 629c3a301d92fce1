import { Op } from 'sequelize';
import type { Tenant, TenantTx } from '../../db/tenant.js';
import { notFound, validationError, type ValidationDetail } from '../../errors.js';
import { storeUpload } from '../../files/storage.js';
import type { UploadedFile } from '../../files/temp.js';
import { zodDetails } from '../../validation/parse.js';
import { z } from '../../validation/zod.js';
import type { AttemptRow } from '../../models/attempt.js';
import type { ExamRow } from '../../models/exam.js';
import type { FileKind, StoredFileRow } from '../../models/stored-file.js';
import { examKeyStoredAt, readExamKey, storeExamKey } from './secrets.js';

/** The only names an exam file may have, and the kind each one is stored as. */
export const EXAM_FILE_KINDS = {
  'starter.zip': 'starter',
  'sample-tests.zip': 'sample_tests',
  'hidden-tests.zip.enc': 'hidden_tests',
} as const satisfies Record<string, FileKind>;

export type ExamFileName = keyof typeof EXAM_FILE_KINDS;
export type ExamFileKind = (typeof EXAM_FILE_KINDS)[ExamFileName];

const NAME_OF_KIND = Object.fromEntries(Object.entries(EXAM_FILE_KINDS).map(([name, kind]) => [kind, name])) as Record<ExamFileKind, ExamFileName>;

export const HIDDEN_KEY_BYTES = 32;
export const HIDDEN_IV_BYTES = 12;

/**
 * True when `text` is standard base64 (padding optional) of exactly `bytes` bytes. Non-canonical
 * spellings (stray bits in the last character, whitespace, base64url) are refused, so what is
 * stored is exactly what was meant.
 */
export function isBase64Of(text: string, bytes: number): boolean {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return false;
  const decoded = Buffer.from(text, 'base64');
  if (decoded.length !== bytes) return false;
  const canonical = decoded.toString('base64');
  return text === canonical || text === canonical.replace(/=+$/, '');
}

const fileRefId = z
  .string()
  .min(1)
  .max(40)
  .openapi({ description: 'A `ref` returned by POST /exams/{id}/files for this exam.', example: 'file_3Jk8mQ2xLw9Pz4Rb7Tn1Vc5Y' });
const fileRef = z
  .union([fileRefId, z.strictObject({ ref: fileRefId })])
  .openapi({ description: 'A `ref` of a file uploaded to this exam, as a string or `{ref}`.', example: 'file_3Jk8mQ2xLw9Pz4Rb7Tn1Vc5Y' });

const commandLine = z.string().min(1).max(2000);

/** The `code_spec` of a coding exam. File references are checked against the exam's uploads by `validateCodeSpec`. */
export const codeSpecSchema = z
  .strictObject({
    toolchain: z.string().trim().min(1).max(100).optional().openapi({
      description: "Toolchain the exam runs on. When the institution's `allowed_toolchains` is not empty it is required and must be one of them.",
      example: 'python-3.12',
    }),
    starter: fileRef.optional().openapi({ description: 'The `starter.zip` upload: a `ref` string or `{ref}`.' }),
    sample_tests: fileRef.optional().openapi({ description: 'The `sample-tests.zip` upload: a `ref` string or `{ref}`.' }),
    hidden_tests: z
      .strictObject({
        file: fileRefId.openapi({ description: 'The `hidden-tests.zip.enc` upload.' }),
        iv_b64: z
          .string()
          .max(64)
          .refine((text) => isBase64Of(text, HIDDEN_IV_BYTES), 'Must be the base64 of a 12-byte IV.')
          .openapi({ description: 'AES-GCM IV of the encrypted archive: base64 of 12 bytes.', example: 'q83vEjRWeJASNFZ4' }),
        sha256: z
          .string()
          .regex(/^[0-9a-fA-F]{64}$/, 'Must be 64 hexadecimal characters.')
          .openapi({
            description: "SHA-256 (hex) of the uploaded encrypted file; must equal the upload's `sha256`.",
            example: '9f2c1a7e4b8d3f60a5c2e1b7d9f4a3c8e6b1d0f2a7c9e5b3d1f8a6c4e2b0d9f7',
          }),
      })
      .optional()
      .openapi({ description: 'The encrypted hidden tests; their key is held with PUT /exams/{id}/code-secret.' }),
    commands: z
      .record(z.string().min(1).max(50), z.union([commandLine, z.array(commandLine).min(1).max(50)]))
      .refine((commands) => Object.keys(commands).length <= 20, 'At most 20 commands.')
      .optional()
      .openapi({
        description: 'Named commands: a command line or a list of them.',
        example: { build: 'pip install -r requirements.txt', test: ['pytest -q'] },
      }),
    ai_policy: z
      .strictObject({
        allowed: z.boolean(),
        model_tier: z.string().min(1).max(50),
        max_interactions: z.number().int().min(0).max(100_000),
      })
      .partial()
      .optional()
      .openapi({ description: 'AI policy inside the coding app.', example: { allowed: true, model_tier: 'standard', max_interactions: 20 } }),
  })
  .openapi('CodeSpec');

export type CodeSpec = z.output<typeof codeSpecSchema>;

const refOf = (value: string | { ref: string } | undefined) => (typeof value === 'string' ? value : value?.ref);

/**
 * Checks a `code_spec` for an exam being created (`examId` null) or updated: shape per
 * `codeSpecSchema` (every key optional); each file reference an upload of this very exam of the
 * matching kind (an exam being created has none yet, so any reference is refused); the hidden
 * tests' `sha256` equal to the upload's (the encrypted file as stored); and, when the institution
 * restricts toolchains, `toolchain` naming an allowed one. All problems are reported at once as
 * `422 validation_error` with `code_spec.…` paths. `null` or `undefined` (no spec, or clearing it)
 * is always valid.
 */
export async function validateCodeSpec(tenant: Tenant, examId: string | null, codeSpec: unknown): Promise<void> {
  if (codeSpec === null || codeSpec === undefined) return;
  const parsed = codeSpecSchema.safeParse(codeSpec);
  if (!parsed.success) {
    throw validationError(zodDetails(parsed.error).map((detail) => ({ ...detail, path: detail.path ? `code_spec.${detail.path}` : 'code_spec' })));
  }
  const spec = parsed.data;
  const details: ValidationDetail[] = [];

  const wanted: Array<{ path: string; ref: string; kind: ExamFileKind }> = [];
  const starter = refOf(spec.starter);
  const sampleTests = refOf(spec.sample_tests);
  if (starter) wanted.push({ path: typeof spec.starter === 'string' ? 'code_spec.starter' : 'code_spec.starter.ref', ref: starter, kind: 'starter' });
  if (sampleTests) {
    wanted.push({
      path: typeof spec.sample_tests === 'string' ? 'code_spec.sample_tests' : 'code_spec.sample_tests.ref',
      ref: sampleTests,
      kind: 'sample_tests',
    });
  }
  if (spec.hidden_tests) wanted.push({ path: 'code_spec.hidden_tests.file', ref: spec.hidden_tests.file, kind: 'hidden_tests' });

  const files =
    examId && wanted.length > 0
      ? await examFiles(
          tenant,
          examId,
          wanted.map((item) => item.ref),
        )
      : new Map<string, StoredFileRow>();
  for (const item of wanted) {
    const file = files.get(item.ref);
    if (!file) {
      details.push({ path: item.path, message: 'Not a file uploaded to this exam (POST /exams/{id}/files).' });
    } else if (file.kind !== item.kind) {
      details.push({
        path: item.path,
        message: `Must be the exam's ${NAME_OF_KIND[item.kind]} upload; this ref is ${NAME_OF_KIND[file.kind as ExamFileKind] ?? file.kind}.`,
      });
    } else if (item.kind === 'hidden_tests' && spec.hidden_tests && file.sha256 !== spec.hidden_tests.sha256.toLowerCase()) {
      details.push({ path: 'code_spec.hidden_tests.sha256', message: 'Does not match the sha256 of the uploaded file.' });
    }
  }

  const { allowed_toolchains: allowed } = (await tenant.institution()).config;
  if (allowed.length > 0 && (spec.toolchain === undefined || !allowed.includes(spec.toolchain))) {
    details.push({ path: 'code_spec.toolchain', message: `Must be one of the institution's allowed_toolchains: ${allowed.join(', ')}.` });
  }

  if (details.length > 0) throw validationError(details);
}

async function examFiles(tenant: Tenant, examId: string, refs: string[]): Promise<Map<string, StoredFileRow>> {
  const rows = await tenant.files.findAll({ where: { id: { [Op.in]: [...new Set(refs)] }, owner_type: 'exam', owner_id: examId } });
  return new Map(rows.map((row) => [row.id, row]));
}

async function findExam(tenant: Tenant, id: string): Promise<ExamRow> {
  const exam = await tenant.exams.findById(id);
  if (!exam) throw notFound('exam');
  return exam;
}

export function examFileKind(name: string): ExamFileKind | null {
  return Object.hasOwn(EXAM_FILE_KINDS, name) ? EXAM_FILE_KINDS[name as ExamFileName] : null;
}

/**
 * Stores an uploaded exam file under DATA_DIR. Each upload is a new `ref`, even under a name
 * uploaded before: refs already named in a `code_spec` keep working until the spec is changed.
 */
/** Before an upload's body is received: the exam is this institution's (else `404 not_found`). */
export async function checkExamTakesFiles(tenant: Tenant, examId: string): Promise<void> {
  await findExam(tenant, examId);
}

export async function uploadExamFile(tenant: Tenant, dataDir: string, examId: string, upload: UploadedFile): Promise<StoredFileRow> {
  const kind = examFileKind(upload.name);
  if (!kind) {
    throw validationError([{ path: 'file', message: `The file name must be one of ${Object.keys(EXAM_FILE_KINDS).join(', ')}.` }]);
  }
  return tenant.inTransaction(async (tx) => {
    const exam = await findExam(tx, examId);
    return storeUpload(tx, dataDir, upload, { type: 'exam', id: exam.id, kind, name: upload.name });
  });
}

export interface HiddenKeyStatus {
  stored: boolean;
  stored_at: Date | null;
  released_count: number;
}

/** Holds the exam's hidden-tests key (replacing any earlier one). The key is never echoed, logged or put in an event. */
export async function storeHiddenKey(tenant: Tenant, examId: string, keyB64: string): Promise<{ stored: true; stored_at: Date }> {
  // Checked again here for callers other than the API (whose schema already refused it).
  if (!isBase64Of(keyB64, HIDDEN_KEY_BYTES)) {
    throw validationError([{ path: 'hidden_key_b64', message: 'Must be the base64 of exactly 32 bytes.' }]);
  }
  return tenant.inTransaction(async (tx) => {
    const exam = await findExam(tx, examId);
    await storeExamKey(tx, exam.id, Buffer.from(keyB64, 'base64'));
    const storedAt = await examKeyStoredAt(tx, exam.id);
    if (!storedAt) throw new Error(`hidden key of ${exam.id} vanished after storing`);
    return { stored: true, stored_at: storedAt };
  });
}

const releasedCount = (tenant: Tenant, examId: string) => tenant.attempts.count({ where: { exam_id: examId, hidden_released_at: { [Op.ne]: null } } });

export async function hiddenKeyStatus(tenant: Tenant, examId: string): Promise<HiddenKeyStatus> {
  const exam = await findExam(tenant, examId);
  const [storedAt, count] = await Promise.all([examKeyStoredAt(tenant, exam.id), releasedCount(tenant, exam.id)]);
  return { stored: storedAt !== null, stored_at: storedAt, released_count: count };
}

/** The key back, for the institution (`404 no_secret` when none is held). */
export async function releaseHiddenKey(tenant: Tenant, examId: string): Promise<{ hidden_key_b64: string }> {
  const exam = await findExam(tenant, examId);
  return { hidden_key_b64: await readExamKey(tenant, exam.id) };
}

/**
 * The key for a student's attempt (learner side). Records `hidden_released_at` the first time;
 * asking again returns the key and keeps the first time. Whether the attempt may still receive
 * it (not submitted, not expired) is the caller's rule.
 */
export async function releaseHiddenKeyToAttempt(tx: TenantTx, attempt: AttemptRow): Promise<{ hidden_key_b64: string }> {
  if (attempt.institution_id !== tx.institutionId) throw notFound('attempt');
  const key = await readExamKey(tx, attempt.exam_id);
  if (attempt.hidden_released_at === null) {
    const now = new Date();
    // Only the first release counts, even when two requests race.
    const affected = await tx.attempts.update({ hidden_released_at: now }, { id: attempt.id, hidden_released_at: null });
    if (affected > 0) attempt.set('hidden_released_at', now, { raw: true });
    else await attempt.reload({ transaction: tx.tx });
  }
  return { hidden_key_b64: key };
}
