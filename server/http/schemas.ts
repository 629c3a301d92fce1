import { z } from './zod.js';

/** Building blocks shared by every area's schema.ts. */

export const timestamp = z.string().openapi({ format: 'date-time', example: '2026-09-14T10:00:00.000Z' });

export const pageQuery = {
  page: z.coerce.number().int().min(1).default(1).openapi({ description: 'Page number, from 1.', example: 1 }),
  limit: z.coerce.number().int().min(1).max(200).default(50).openapi({ description: 'Items per page, 1 to 200.', example: 50 }),
};

export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    page: z.number().int(),
    limit: z.number().int(),
    total: z.number().int(),
    totalPages: z.number().int(),
  });
}

export const isoDateTime = z.iso.datetime({ offset: true }).openapi({ example: '2026-09-14T10:00:00.000Z' });

export const idParam = (description: string, example: string) =>
  z.strictObject({ id: z.string().min(1).max(320).openapi({ description, example }) });
