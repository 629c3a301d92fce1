import type { Tenant } from '../../db/tenant.js';
import { zodDetails } from '../../validation/parse.js';
import type { PersonRow } from '../../models/person.js';
import { createStudentBody } from '../../validation/people.js';
import { createPeople, createPerson, externalIdConflict, takenExternalIds, type NewPerson } from './people.js';

export interface StudentInput {
  full_name: string;
  student_id?: string | null;
  personal_email?: string | null;
  license_days: number;
}

export function createStudent(tenant: Tenant, input: StudentInput): Promise<PersonRow> {
  return tenant.inTransaction((tx) => createPerson(tx, 'student', newStudent(input)));
}

function newStudent(input: StudentInput): NewPerson {
  return { full_name: input.full_name, external_id: input.student_id, personal_email: input.personal_email, license_days: input.license_days };
}

type BulkResult = { index: number; id: string; login_email: string } | { index: number; error: string; message: string };

/**
 * Up to 200 students in one transaction; each item succeeds or fails on its own. An item fails
 * only on checks made before anything is written (validation, a `student_id` taken by an existing
 * student or by an earlier item of the call), so a failed item leaves nothing behind; anything
 * unexpected rolls the whole call back. The accepted items are written together, a constant
 * number of statements for the call (docs/decisions/batched-writes.md).
 */
export async function bulkCreateStudents(tenant: Tenant, items: readonly unknown[]) {
  const results = await tenant.inTransaction(async (tx) => {
    const out: BulkResult[] = [];
    const valid: Array<{ index: number; input: StudentInput }> = [];
    for (const [index, item] of items.entries()) {
      const parsed = createStudentBody.safeParse(item);
      if (parsed.success) {
        valid.push({ index, input: parsed.data });
        continue;
      }
      const message = zodDetails(parsed.error)
        .map((detail) => (detail.path ? `${detail.path}: ${detail.message}` : detail.message))
        .join('; ');
      out.push({ index, error: 'validation_error', message });
    }

    const taken = await takenExternalIds(
      tx,
      'student',
      valid.flatMap(({ input }) => (input.student_id ? [input.student_id] : [])),
    );
    const accepted: typeof valid = [];
    for (const item of valid) {
      const studentId = item.input.student_id;
      if (studentId && taken.has(studentId)) {
        const conflict = externalIdConflict('student', studentId);
        out.push({ index: item.index, error: conflict.code, message: conflict.message });
        continue;
      }
      if (studentId) taken.add(studentId);
      accepted.push(item);
    }

    const people = await createPeople(
      tx,
      'student',
      accepted.map(({ input }) => newStudent(input)),
    );
    people.forEach((person, position) => out.push({ index: accepted[position]!.index, id: person.id, login_email: person.login_email }));
    return out.sort((a, b) => a.index - b.index);
  });
  const failed = results.filter((result) => 'error' in result).length;
  return { results, created: results.length - failed, failed };
}
