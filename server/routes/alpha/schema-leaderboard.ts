import { queryInt } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';
import { STUDENT_EXAMPLE } from './schema.js';

export const leaderboardQuery = z.strictObject({
  limit: queryInt({ min: 1, max: 100, default: 10 }).openapi({ description: 'Entries, 1 to 100, default 10.', example: 10 }),
});

export const leaderboardSchema = z.object({
  items: z
    .array(
      z.object({
        rank: z.number().int().openapi({ example: 1 }),
        student_id: z.string().openapi({ example: STUDENT_EXAMPLE }),
        full_name: z.string().openapi({ example: 'Ada Lovelace' }),
        points: z.number().int().openapi({ example: 165 }),
      }),
    )
    .openapi({
      description: 'Students with a positive total, highest first. Equal totals share a rank and the next rank skips (1, 2, 2, 4); within a rank, by name.',
    }),
});
