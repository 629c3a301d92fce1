import { CSV_COLUMNS } from '../../commands/exams/results.js';
import { pageOf, timestamp } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';
import { EXAM_ID, STUDENT_ID, SUBMISSION_ID, examSchema } from './schema.js';

export const attemptSchema = z
  .object({
    id: z.string().openapi({ example: 'att_8Kp2mR5xWq9Lz3Nb6Tv1Yc4D' }),
    exam_id: z.string().openapi({ example: EXAM_ID }),
    student_id: z.string().openapi({ example: STUDENT_ID }),
    started_at: timestamp,
    expires_at: timestamp.nullable().openapi({ description: 'From the time limit; null when untimed.' }),
    submitted_at: timestamp.nullable(),
    hidden_released_at: timestamp.nullable().openapi({ description: 'When the hidden-tests key was released to the student.', example: null }),
  })
  .openapi('Attempt');

export const attemptPage = pageOf(attemptSchema);

const scoreStat = (description: string, example: number) => z.number().nullable().openapi({ description, example });

export const analyticsSchema = z
  .object({
    count: z.number().int().openapi({ description: 'Graded submissions counted (voided and ungraded ones are not).', example: 3 }),
    mean: scoreStat('Null when count is 0.', 70),
    median: scoreStat('Middle score; the mean of the two middle ones for an even count.', 70),
    min: scoreStat('Lowest score.', 50),
    max: scoreStat('Highest score.', 90),
    stddev: scoreStat('Population standard deviation.', 16.33),
    histogram: z
      .array(
        z.object({
          from: z.number().openapi({ example: 50 }),
          to: z.number().openapi({ example: 60 }),
          count: z.number().int().openapi({ example: 1 }),
        }),
      )
      .openapi({
        description:
          '10 equal buckets from 0 to `max_score` (or to the highest score when the exam has none); each holds `from` ≤ score < `to`, the last one also `to`. Empty when count is 0.',
      }),
  })
  .openapi('ExamAnalytics');

export const scoreRowSchema = z
  .object({
    student_id: z.string().openapi({ example: STUDENT_ID }),
    login_email: z.string().openapi({ example: 'ada.lovelace@riverside-high.campusbridge.local' }),
    full_name: z.string().openapi({ example: 'Ada Lovelace' }),
    submission_id: z
      .string()
      .nullable()
      .openapi({ description: "The student's latest submission that is not voided; null when none.", example: SUBMISSION_ID }),
    status: z.enum(['submitted', 'graded', 'resubmission_requested']).nullable().openapi({ example: 'graded' }),
    score: z.number().nullable().openapi({ example: 87.5 }),
    max_score: z.number().nullable().openapi({ description: "The exam's max_score.", example: 100 }),
  })
  .openapi('ExamScore');

export const scoreList = z.object({
  items: z.array(scoreRowSchema).openapi({ description: 'One row per student assigned through a group or having a submission, ordered by full name.' }),
});

export const scoresCsv = z.string().openapi({
  description: `RFC 4180 CSV (UTF-8, CRLF line ends), header row first: \`${CSV_COLUMNS.join(',')}\`. Text cells starting with \`=\`, \`+\`, \`-\`, \`@\`, tab or carriage return are prefixed with \`'\`.`,
  example: `${CSV_COLUMNS.join(',')}\r\n${STUDENT_ID},ada.lovelace@riverside-high.campusbridge.local,Ada Lovelace,${SUBMISSION_ID},graded,87.5,100,2026-09-30T14:02:11.000Z,2026-10-02T09:15:00.000Z\r\n`,
});

export const studentExamItem = z
  .object({
    exam: examSchema,
    submission: z
      .object({
        id: z.string().openapi({ example: SUBMISSION_ID }),
        status: z.enum(['submitted', 'graded', 'resubmission_requested']),
        score: z.number().nullable().openapi({ example: 87.5 }),
      })
      .nullable()
      .openapi({ description: "The student's latest submission that is not voided; null when none." }),
  })
  .openapi('StudentExam');

export const studentExamPage = pageOf(studentExamItem);
