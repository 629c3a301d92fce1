import type { z } from 'zod';
import type { RESUBMISSION_SCORE as SERVER_RESUBMISSION_SCORE } from '../../../../server/commands/exams/submissions';
import type { fileLinkSchema, submissionSchema } from '../../../../server/routes/submissions/schema';
import type { components } from '../../api/generated/portal';

/** Submissions' wire types: type-only imports of the server's schemas (z.input: the JSON the handler returns). */
export type Submission = z.input<typeof submissionSchema>;
export type SubmissionStatus = Submission['status'];
export type FileLink = z.input<typeof fileLinkSchema>;
/** As the portal's document gives them: there, a field of any JSON (`answers`, an event's `detail`) may be absent. */
export type SubmissionDetail = components['schemas']['SubmissionDetail'];
export type ProctoringFeed = components['schemas']['ProctoringFeed'];

export const SUBMISSION_STATUSES: readonly SubmissionStatus[] = ['submitted', 'graded', 'resubmission_requested', 'voided'];

/**
 * Asks the student to submit again instead of grading (the API's score -1). The server's constant
 * is in a command module (database code), so the value is repeated here and its type pins it.
 */
export const RESUBMISSION_SCORE: typeof SERVER_RESUBMISSION_SCORE = -1;
