import { z } from './zod.js';

/** Building blocks shared by every area's schema.ts. */

export const timestamp = z.string().openapi({ format: 'date-time', example: '2026-09-14T10:00:00.000Z' });

/**
 * A whole number in a query string, written in decimal digits only: `1e2`, `0x10`, ` 5` and `5.0`
 * are refused (422) rather than read as something the caller may not have meant.
 */
export function queryInt(bounds: { min: number; max: number; default: number }) {
  return z
    .string()
    .regex(/^\d{1,9}$/, 'A whole number in decimal digits.')
    .transform(Number)
    .pipe(z.number().int().min(bounds.min).max(bounds.max))
    .optional()
    .transform((value) => value ?? bounds.default)
    .openapi({ type: 'integer', minimum: bounds.min, maximum: bounds.max, default: bounds.default });
}

export const pageQuery = {
  page: queryInt({ min: 1, max: 1_000_000, default: 1 }).openapi({ description: 'Page number, from 1.', example: 1 }),
  limit: queryInt({ min: 1, max: 200, default: 50 }).openapi({ description: 'Items per page, 1 to 200.', example: 50 }),
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

export const idParam = (description: string, example: string) => z.strictObject({ id: z.string().min(1).max(320).openapi({ description, example }) });
