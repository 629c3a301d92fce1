import { MAX_CHUNK_BYTES, MAX_CHUNKS_PER_RECORDING, MAX_RECORDING_BYTES, MAX_RECORDINGS_PER_ATTEMPT } from '../../commands/recordings/recordings.js';
import { timestamp } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';

const ATTEMPT_EXAMPLE = 'att_3Jk7mW1xPq8Lz2Rb6Tn9Vc5Y';
const RECORDING_EXAMPLE = 'rec_8Pq3mV6xKw2Lz9Rb4Tn1Hc7Y';
const MB = 1024 * 1024;

const TOKEN = '[A-Za-z0-9!#$&^_.+-]+';
/** `video/webm`, `video/webm;codecs=vp9,opus`, `audio/ogg; codecs="opus"`: audio or video only, since it becomes the download's type. */
const MEDIA_TYPE = new RegExp(`^(?:video|audio)/${TOKEN}(?:\\s*;\\s*${TOKEN}=(?:[A-Za-z0-9!#$&^_.+,-]+|"[^"\\\\\\r\\n]*"))*$`);

export const recordingParams = z.strictObject({
  id: z.string().min(1).max(320).openapi({ description: 'Attempt id.', example: ATTEMPT_EXAMPLE }),
  recId: z.string().min(1).max(320).openapi({ description: 'Recording id.', example: RECORDING_EXAMPLE }),
});

export const startRecordingBody = z
  .strictObject({
    source: z.enum(['camera', 'screen']).openapi({ description: 'What is recorded: the camera, or the shared screen.' }),
    mime_type: z
      .string()
      .max(100)
      .regex(MEDIA_TYPE, 'An audio or video media type, as MediaRecorder.mimeType names it.')
      .openapi({ description: "The MediaRecorder's `mimeType`; the finished file is served with it.", example: 'video/webm;codecs=vp9' }),
  })
  .openapi('LearnerRecordingStart');

export const chunkQuery = z.strictObject({
  seq: z
    .string()
    .regex(/^\d{1,9}$/, 'A whole number in decimal digits.')
    .transform(Number)
    .pipe(z.number().int().min(0).max(MAX_CHUNKS_PER_RECORDING))
    .openapi({
      type: 'integer',
      minimum: 0,
      maximum: MAX_CHUNKS_PER_RECORDING,
      description: "The chunk's number in the recording, from 0: the recording's `next_seq`, or an earlier one to retry.",
      example: 0,
    }),
});

export const recordingSchema = z
  .object({
    id: z.string().openapi({ example: RECORDING_EXAMPLE }),
    attempt_id: z.string().openapi({ example: ATTEMPT_EXAMPLE }),
    source: z.enum(['camera', 'screen']),
    mime_type: z.string().openapi({ example: 'video/webm;codecs=vp9' }),
    chunks: z.number().int().openapi({ description: 'Chunks received.', example: 12 }),
    bytes: z
      .number()
      .int()
      .openapi({ description: `Bytes received, at most ${MAX_RECORDING_BYTES / MB} MB.`, example: 3145728 }),
    next_seq: z.number().int().openapi({ description: 'The `seq` of the next chunk to send (equal to `chunks`).', example: 12 }),
    started_at: timestamp,
    finished_at: timestamp.nullable().openapi({ description: 'Set once finished: the recording takes no more chunks.', example: null }),
  })
  .openapi('LearnerRecording', {
    description:
      `A proctoring recording of the attempt, received in chunks of at most ${MAX_CHUNK_BYTES / MB} MB; at most ${MAX_RECORDINGS_PER_ATTEMPT} per attempt. ` +
      'Once finished it is one file of the submission, which only keys holding `submissions:write` see.',
  });

export const recordingList = z.object({ items: z.array(recordingSchema) });
