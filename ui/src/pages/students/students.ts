import type { z } from 'zod';
import type { studentExamItem } from '../../../../server/routes/exams/schema-results';
import type { MAX_BULK as SERVER_MAX_BULK, studentSchema } from '../../../../server/routes/students/schema';

/** Students' wire types: type-only imports of the server's schemas (z.input: the JSON the handler returns). */
export type Student = z.input<typeof studentSchema>;
export type StudentExam = z.input<typeof studentExamItem>;

/**
 * Students per bulk import. The server's MAX_BULK lives in its schema module, which loads zod at
 * run time, so the value is repeated here and its type pins it to the server's.
 */
export const MAX_BULK: typeof SERVER_MAX_BULK = 200;
