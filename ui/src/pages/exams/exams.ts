import { useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import type { analyticsSchema, scoreList, scoreRowSchema } from '../../../../server/routes/exams/schema-results';
import type { examDetailSchema, examSchema } from '../../../../server/routes/exams/schema';
import { call, portal } from '../../api/portal';
import { areaKey, PICKER_LIMIT } from '../shared/areas';

/** Exams' wire types: type-only imports of the server's schemas (z.input: the JSON the handler returns). */
export type Exam = z.input<typeof examSchema>;
export type ExamDetail = z.input<typeof examDetailSchema>;
export type ScoreRow = z.input<typeof scoreRowSchema>;
export type ScoreList = z.input<typeof scoreList>;
export type ExamAnalytics = z.input<typeof analyticsSchema>;

/** The filter's choices; the type keeps them to the server's `examType` values. */
export const EXAM_TYPES = ['exam', 'homework', 'assignment', 'quiz', 'project'] as const satisfies readonly Exam['exam_type'][];

/** Exams for naming them in the submissions log and filtering it. */
export function useExamOptions(institutionId: string) {
  return useQuery({
    queryKey: [...areaKey(institutionId, 'exams'), 'options'],
    queryFn: () => call(portal.GET('/institutions/{institution}/exams', { params: { path: { institution: institutionId }, query: { limit: PICKER_LIMIT } } })),
    staleTime: 30_000,
  });
}
