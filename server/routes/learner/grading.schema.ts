import { pageOf, pageQuery } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';
import { gradeSubmissionBody, submissionDetailSchema, submissionSchema } from '../submissions/schema.js';

const gradingStudent = z
  .object({
    id: z.string().openapi({ example: 'stu_7Hk2mQ9xLw4Pz8Rb1Tn5Vc3Y' }),
    full_name: z.string().openapi({ example: 'Ada Lovelace' }),
    login_email: z.string().openapi({ example: 'ada.lovelace@riverside-high.campusbridge.local' }),
  })
  .nullable()
  .openapi('GradingStudent', { description: 'Who submitted; null if the person was erased since.' });

export const gradingExamSchema = z
  .object({
    id: z.string().openapi({ example: 'exm_5Qw8kT2xLm9Pz3Rb7Vn1Hc4Y' }),
    title: z.string().openapi({ example: 'Unit 3 quiz' }),
    max_score: z.number().nullable().openapi({ description: 'The highest score; null when the exam has none (any score ≥ 0).', example: 100 }),
  })
  .openapi('GradingExam');

export const gradingQuery = z.strictObject({ ...pageQuery });

export const gradingPage = pageOf(submissionSchema.extend({ student: gradingStudent }))
  .extend({ exam: gradingExamSchema })
  .openapi('GradingPage');

export const gradingSubmissionSchema = submissionDetailSchema.extend({ student: gradingStudent }).openapi('GradingSubmission');

export const gradingBody = gradeSubmissionBody.omit({ graded_by: true }).openapi('GradingGrade');
