import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import type { Tenant } from '../../db/tenant.js';
import { tempDir, TEMP_PREFIX } from '../../files/temp.js';
import { newId } from '../../ids.js';
import type { ExamRow } from '../../models/exam.js';
import { storeHiddenKey, uploadExamFile } from '../exams/coding.js';
import { updateExam } from '../exams/exams.js';

/** The files of one demo coding exam, as a teacher would write them: name → text. */
export interface DemoArchives {
  starter: Record<string, string>;
  sampleTests: Record<string, string>;
  hiddenTests: Record<string, string>;
}

/** A real zip (deflated), so a student who downloads it in the demo can open it. */
const zipOf = (files: Record<string, string>) =>
  Buffer.from(zipSync(Object.fromEntries(Object.entries(files).map(([name, text]) => [name, strToU8(text)])), { level: 6 }));

/**
 * AES-256-GCM with the tag appended to the ciphertext: the layout Web Crypto's `encrypt` gives and
 * its `decrypt` takes, so a coding app decrypts it with the key the attempt receives and the IV
 * from the exam's `code_spec` (docs/api.md#coding-exams).
 */
function sealed(plain: Buffer, key: Buffer, iv: Buffer): Buffer {
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  return Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
}

/** Uploads `bytes` as the exam file `name` through the API's own command (temp file, then storage). */
async function upload(tenant: Tenant, dataDir: string, examId: string, name: string, bytes: Buffer) {
  const dir = tempDir(dataDir);
  await fs.promises.mkdir(dir, { recursive: true });
  const file = path.join(dir, `${TEMP_PREFIX}${newId('demo')}`);
  await fs.promises.writeFile(file, bytes);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  try {
    return await uploadExamFile(tenant, dataDir, examId, { path: file, name, contentType: 'application/zip', size: bytes.length, sha256 });
  } finally {
    await fs.promises.rm(file, { force: true });
  }
}

/**
 * The integrator's coding-exam flow for a demo exam, step for step as docs/api.md describes it:
 * upload the three archives, name them in `code_spec`, store the hidden-tests key. The key and IV
 * are random per run and the key is kept only as the API keeps it (sealed under the master key).
 */
export async function attachDemoArchives(tenant: Tenant, dataDir: string, exam: ExamRow, archives: DemoArchives): Promise<ExamRow> {
  const key = randomBytes(32);
  const iv = randomBytes(12);
  const starter = await upload(tenant, dataDir, exam.id, 'starter.zip', zipOf(archives.starter));
  const sampleTests = await upload(tenant, dataDir, exam.id, 'sample-tests.zip', zipOf(archives.sampleTests));
  const hidden = await upload(tenant, dataDir, exam.id, 'hidden-tests.zip.enc', sealed(zipOf(archives.hiddenTests), key, iv));
  const updated = await updateExam(tenant, exam.id, {
    code_spec: {
      ...exam.code_spec,
      starter: starter.id,
      sample_tests: sampleTests.id,
      hidden_tests: { file: hidden.id, iv_b64: iv.toString('base64'), sha256: hidden.sha256 },
    },
  });
  await storeHiddenKey(tenant, exam.id, key.toString('base64'));
  return updated;
}
