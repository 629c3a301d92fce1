import { HIDDEN_KEY_BYTES, isBase64Of } from '../../commands/exams/coding.js';
import { idParam, timestamp } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';

// Never a real-looking key, anywhere in the document: the key must not leak even as an example.
const KEY_PLACEHOLDER = '<base64 of 32 bytes>';

export const codingExamParams = idParam('Exam id.', 'exm_5Rt9pL3xKw8Qz2Nb7Vm4Yc1D');

export const examFileSchema = z
  .object({
    ref: z.string().openapi({ description: "Use it in the exam's `code_spec`.", example: 'file_3Jk8mQ2xLw9Pz4Rb7Tn1Vc5Y' }),
    name: z.enum(['starter.zip', 'sample-tests.zip', 'hidden-tests.zip.enc']).openapi({ example: 'starter.zip' }),
    size: z.number().int().openapi({ description: 'Bytes.', example: 48213 }),
    sha256: z
      .string()
      .openapi({ description: 'SHA-256 of the file as received, hex.', example: '9f2c1a7e4b8d3f60a5c2e1b7d9f4a3c8e6b1d0f2a7c9e5b3d1f8a6c4e2b0d9f7' }),
  })
  .openapi('ExamFile');

export const putCodeSecretBody = z
  .strictObject({
    // The message is fixed on purpose: a refused key is never echoed back.
    hidden_key_b64: z
      .string()
      .max(200)
      .refine((text) => isBase64Of(text, HIDDEN_KEY_BYTES), 'Must be the base64 of exactly 32 bytes.')
      .openapi({ description: 'The AES-256 key of `hidden-tests.zip.enc`: standard base64 of exactly 32 bytes.', example: KEY_PLACEHOLDER }),
  })
  .openapi('CodeSecretPut');

export const codeSecretStoredSchema = z.object({ stored: z.literal(true), stored_at: timestamp }).openapi('CodeSecretStored');

export const codeSecretStatusSchema = z
  .object({
    stored: z.boolean().openapi({ example: true }),
    stored_at: timestamp.nullable().openapi({ description: 'When the current key was stored; null when none is.' }),
    released_count: z.number().int().openapi({ description: 'Attempts of this exam that received the key.', example: 12 }),
  })
  .openapi('CodeSecretStatus');

export const codeSecretReleaseSchema = z
  .object({ hidden_key_b64: z.string().openapi({ description: 'The stored key, base64.', example: KEY_PLACEHOLDER }) })
  .openapi('CodeSecretRelease');
