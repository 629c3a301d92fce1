import type { Tenant } from '../db/tenant.js';
import { AppError } from '../errors.js';
import { zodDetails } from '../validation/parse.js';
import type { PersonRow } from '../models/person.js';
import { createStudentBody } from '../validation/people.js';
import { createPerson } from './people.js';

export interface StudentInput {
  full_name: string;
  student_id?: string | null;
  personal_email?: string | null;
  license_days: number;
}

export function createStudent(tenant: Tenant, input: StudentInput): Promise<PersonRow> {
  return tenant.inTransaction((tx) =>
    createPerson(tx, 'student', {
      full_name: input.full_name,
      external_id: input.student_id,
      personal_email: input.personal_email,
      license_days: input.license_days,
    }),
  );
}

type BulkResult = { index: number; id: string; login_email: string } | { index: number; error: string; message: string };

/**
 * Up to 200 students in one transaction; each item succeeds or fails on its own. An item fails
 * only on checks made before anything of it is written (validation, a taken `student_id`), so a
 * failed item leaves nothing behind; anything unexpected rolls the whole call back.
 */
export async function bulkCreateStudents(tenant: Tenant, items: readonly unknown[]) {
  const results = await tenant.inTransaction(async (tx) => {
    const out: BulkResult[] = [];
    for (const [index, item] of items.entries()) {
      const parsed = createStudentBody.safeParse(item);
      if (!parsed.success) {
        const message = zodDetails(parsed.error)
          .map((detail) => (detail.path ? `${detail.path}: ${detail.message}` : detail.message))
          .join('; ');
        out.push({ index, error: 'validation_error', message });
        continue;
      }
      try {
        const person = await createStudent(tx, parsed.data);
        out.push({ index, id: person.id, login_email: person.login_email });
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        out.push({ index, error: error.code, message: error.message });
      }
    }
    return out;
  });
  const failed = results.filter((result) => 'error' in result).length;
  return { results, created: results.length - failed, failed };
}
