import { z } from '../../validation/zod.js';

/** A submission of an institution. */
export const submissionParams = z.strictObject({ id: z.string().min(1).max(40), submissionId: z.string().min(1).max(40) });

/** An exam of an institution. */
export const examParams = z.strictObject({ id: z.string().min(1).max(40), examId: z.string().min(1).max(40) });

/** One place a grade goes (the LMS or the SIS): what it took last and the state of the newest score. */
export const destinationSchema = z.object({
  destination: z.enum(['lms', 'sis']).openapi({ description: '`lms`: an AGS line item; `sis`: a OneRoster gradebook result.' }),
  name: z.string().openapi({ description: "The platform's name, or the group the SIS class became." }),
  target: z.string().openapi({ description: 'The AGS line item URL, or the gradebook line item sourcedId.' }),
  sent_score: z.number().nullable().openapi({ description: 'The last score the destination took; null: none yet.' }),
  sent_at: z.string().nullable(),
  latest_score: z.number().nullable().openapi({ description: 'The newest score queued for the destination, the one `state` is about.' }),
  state: z.enum(['delivered', 'queued', 'failed']),
  error: z.string().nullable(),
  next_attempt_at: z.string().nullable(),
});

/** A submission's grade here next to where it stands in each destination. */
export const gradeStandingSchema = z.object({
  submission_id: z.string(),
  exam_id: z.string(),
  student_id: z.string(),
  score: z.number().nullable().openapi({ description: 'The grade here.' }),
  status: z.string(),
  destinations: z.array(destinationSchema),
  summary: z.string().openapi({ description: 'In words, as the portal shows it: "LMS has 7, SIS has 7, here 8: queued".' }),
});
