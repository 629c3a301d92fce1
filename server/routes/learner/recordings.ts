import { appendChunk, checkChunkWanted } from '../../commands/recordings/chunks.js';
import { finishRecording } from '../../commands/recordings/finish.js';
import { listRecordings, MAX_CHUNK_BYTES, MAX_RECORDING_BYTES, MAX_RECORDINGS_PER_ATTEMPT, startRecording } from '../../commands/recordings/recordings.js';
import { defineRoute, type ApiRoute } from '../../http/route.js';
import { presentRecording } from '../../presenters/recording.js';
import { chunkQuery, recordingList, recordingParams, recordingSchema, startRecordingBody } from './recordings.schema.js';
import { attemptParams } from './schema.js';

const STUDENTS_ONLY = "Students only: a faculty member's session is `403 forbidden`.";
const OWN_ATTEMPT = "The student's own attempt (else `404 not_found`).";
const MB = 1024 * 1024;

/** Proctoring recordings captured by the learner page, received in numbered chunks (docs/decisions/proctoring-recordings.md). */
export const recordingLearnerRoutes: ApiRoute[] = [
  defineRoute({
    caller: 'learner',
    method: 'post',
    path: '/app/attempts/{id}/recordings',
    operationId: 'startLearnerRecording',
    summary: 'Learner: start a proctoring recording',
    description:
      `An empty recording of a camera or the screen. ${OWN_ATTEMPT} The attempt must take work, as for uploads (else \`409 conflict\`); ` +
      `at most ${MAX_RECORDINGS_PER_ATTEMPT} recordings per attempt (\`409 conflict\`). ${STUDENTS_ONLY}`,
    tag: 'SSO',
    params: attemptParams,
    body: startRecordingBody,
    response: recordingSchema,
    errors: ['forbidden', 'not_found', 'conflict'],
    handler: async ({ learner, params, body, ctx }) => presentRecording(await startRecording(learner, params.id, body, ctx.config.dataDir)),
  }),
  defineRoute({
    caller: 'learner',
    method: 'get',
    path: '/app/attempts/{id}/recordings',
    operationId: 'listLearnerRecordings',
    summary: "Learner: the attempt's recordings",
    description: `Oldest first, with each one's \`next_seq\`, so a reloaded page resumes where the server is. ${OWN_ATTEMPT} ${STUDENTS_ONLY}`,
    tag: 'SSO',
    params: attemptParams,
    response: recordingList,
    errors: ['forbidden', 'not_found'],
    handler: async ({ learner, params }) => ({ items: (await listRecordings(learner, params.id)).map(presentRecording) }),
  }),
  defineRoute({
    caller: 'learner',
    method: 'post',
    path: '/app/attempts/{id}/recordings/{recId}/chunks',
    operationId: 'appendLearnerRecordingChunk',
    summary: 'Learner: send one chunk of a recording',
    description:
      `Multipart, one field \`file\`: the next Blob of the MediaRecorder, at most ${MAX_CHUNK_BYTES / MB} MB, the recording at most ${MAX_RECORDING_BYTES / MB} MB ` +
      '(either: `422 file_too_large`). `seq` equal to `next_seq` is appended; an earlier `seq` sent again with the same bytes answers the current state and changes nothing ' +
      '(a retry after a lost answer); any other `seq`, or other bytes, is `409 conflict` naming the expected one. ' +
      'Taken while the attempt takes work and for 5 minutes after it is submitted; never once the recording is finished (`409 conflict`). ' +
      `${OWN_ATTEMPT} ${STUDENTS_ONLY}`,
    tag: 'SSO',
    params: recordingParams,
    query: chunkQuery,
    upload: { maxBytes: MAX_CHUNK_BYTES, before: ({ learner, params, query }) => checkChunkWanted(learner, params.id, params.recId, query.seq) },
    response: recordingSchema,
    errors: ['forbidden', 'not_found', 'conflict', 'file_too_large'],
    handler: async ({ learner, params, query, file, ctx }) =>
      presentRecording(await appendChunk(learner, params.id, params.recId, query.seq, file, ctx.config.dataDir)),
  }),
  defineRoute({
    caller: 'learner',
    method: 'post',
    path: '/app/attempts/{id}/recordings/{recId}/finish',
    operationId: 'finishLearnerRecording',
    summary: 'Learner: finish a recording',
    description:
      'The received chunks become one stored file of the submission (for keys holding `submissions:write`); a recording without chunks leaves none. ' +
      'Finishing again returns the finished recording. Recordings left unfinished are finished 5 minutes after the attempt is submitted. ' +
      `${OWN_ATTEMPT} ${STUDENTS_ONLY}`,
    tag: 'SSO',
    params: recordingParams,
    response: recordingSchema,
    errors: ['forbidden', 'not_found', 'conflict'],
    handler: async ({ learner, params, ctx }) => presentRecording(await finishRecording(learner, params.id, params.recId, ctx.config.dataDir)),
  }),
];
