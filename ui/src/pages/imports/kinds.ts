import { api } from '../../api/client';
import { ApiError } from '../../api/errors';
import { messageInWords } from '../../api/fieldErrors';
import { MAX_BULK, type BulkResult } from '../students/students';
import { dataPath } from '../shared/areas';
import type { ImportField } from './table';

/** One line of the file, with its values by field and what is wrong with it, in words. */
export interface PlannedRow {
  /** The line number in the file, counting the header. */
  line: number;
  values: Record<string, string>;
  problem: string | null;
}

/** What became of one row: created (with what identifies it now) or rejected (why). */
export type RowOutcome = { line: number; values: Record<string, string> } & ({ created: string } | { rejected: string });

/** Rows sent per request: the students bulk endpoint's limit. */
export const CHUNK = MAX_BULK;

export interface ImportKind {
  /** "student", "students" */
  one: string;
  many: string;
  fields: ImportField[];
  /** What happens to a row that goes in: "created", "added". */
  verb: string;
  /** The column title of what identifies a created row in the result file. */
  createdAs: string;
  /** What is wrong with the row on `line`, in words, or null; `earlier` maps values that must be unique to the line they were first seen on. */
  check(values: Record<string, string>, earlier: Map<string, number>, line: number): string | null;
  /** Sends up to CHUNK rows without problems; answers each one's outcome. */
  send(institutionId: string, rows: readonly PlannedRow[]): Promise<RowOutcome[]>;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The API's fields as the import's columns are labelled, for its refusals' words. */
const IMPORT_LABELS = { full_name: 'Name', student_id: 'Student ID', faculty_id: 'Faculty ID', personal_email: 'Personal e-mail' } as const;

/** A refused row's message in words, its fields by their labels (as every form's: ui/src/api/fieldErrors.ts). */
export function inWords(message: string): string {
  return messageInWords(message, IMPORT_LABELS);
}

function personProblem(values: Record<string, string>, earlier: Map<string, number>, line: number, idLabel: string): string | null {
  const name = values.full_name ?? '';
  if (!name) return 'The name is missing.';
  if (name.length > 200) return 'The name is longer than 200 characters.';
  const id = values.external_id ?? '';
  if (id.length > 100) return `The ${idLabel} is longer than 100 characters.`;
  if (id && earlier.has(id)) return `${idLabel[0]!.toUpperCase()}${idLabel.slice(1)} ${id} is also on line ${earlier.get(id)}.`;
  const email = values.personal_email ?? '';
  if (email && (!EMAIL.test(email) || email.length > 320)) return `"${email}" is not an e-mail address.`;
  if (id) earlier.set(id, line);
  return null;
}

const optional = (value: string | undefined) => (value ? value : undefined);

export const studentImport: ImportKind = {
  one: 'student',
  many: 'students',
  verb: 'created',
  createdAs: 'login email',
  fields: [
    { key: 'full_name', label: 'Name', required: true, titles: ['name', 'full name', 'student name', 'student', 'nom', 'nombre'] },
    { key: 'external_id', label: 'Student ID', titles: ['student id', 'student number', 'id', 'sis id', 'student_id', 'number'] },
    { key: 'personal_email', label: 'Personal e-mail', titles: ['personal email', 'email', 'e-mail', 'family email', 'parent email', 'home email'] },
  ],
  check(values, earlier, line) {
    return personProblem(values, earlier, line, 'student ID');
  },
  async send(institutionId, rows) {
    const answer = await api.post<BulkResult>(dataPath(institutionId, '/students/bulk'), {
      students: rows.map((row) => ({
        full_name: row.values.full_name,
        student_id: optional(row.values.external_id),
        personal_email: optional(row.values.personal_email),
      })),
    });
    return answer.results.map((result) => {
      const row = rows[result.index]!;
      return 'error' in result
        ? { line: row.line, values: row.values, rejected: inWords(result.message) }
        : { line: row.line, values: row.values, created: result.login_email };
    });
  },
};

export const facultyImport: ImportKind = {
  one: 'faculty member',
  many: 'faculty members',
  verb: 'created',
  createdAs: 'login email',
  fields: [
    { key: 'full_name', label: 'Name', required: true, titles: ['name', 'full name', 'teacher', 'teacher name', 'faculty name'] },
    { key: 'external_id', label: 'Faculty ID', titles: ['faculty id', 'teacher id', 'staff id', 'id', 'employee id', 'faculty_id'] },
  ],
  check(values, earlier, line) {
    return personProblem(values, earlier, line, 'faculty ID');
  },
  async send(institutionId, rows) {
    // No bulk endpoint for faculty: one request each, a few at a time.
    const outcomes: RowOutcome[] = [];
    for (let start = 0; start < rows.length; start += 4) {
      const batch = rows.slice(start, start + 4);
      outcomes.push(
        ...(await Promise.all(
          batch.map(async (row): Promise<RowOutcome> => {
            try {
              const created = await api.post<{ login_email: string }>(dataPath(institutionId, '/faculty'), {
                full_name: row.values.full_name,
                faculty_id: optional(row.values.external_id),
              });
              return { line: row.line, values: row.values, created: created.login_email };
            } catch (error) {
              // A refusal of this row is its outcome; anything else (the appliance unreachable) stops the import.
              if (error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 401 && error.status !== 429) {
                return { line: row.line, values: row.values, rejected: inWords(error.message) };
              }
              throw error;
            }
          }),
        )),
      );
    }
    return outcomes;
  },
};

interface MembersAnswer {
  rejected_student_ids: string[];
}

/** Members of one group, by login e-mail or id, as `POST /groups/{id}/members` takes them. */
export function memberImport(groupId: string): ImportKind {
  return {
    one: 'member',
    many: 'members',
    verb: 'added',
    createdAs: 'student',
    fields: [{ key: 'student', label: 'Student (login e-mail or id)', required: true, titles: ['student', 'login email', 'email', 'student email', 'id'] }],
    check(values, earlier, line) {
      const student = values.student ?? '';
      if (!student) return 'The student is missing.';
      if (earlier.has(student)) return `${student} is also on line ${earlier.get(student)}.`;
      earlier.set(student, line);
      return null;
    },
    async send(institutionId, rows) {
      const notFound = 'No student of this institution has this login e-mail or id.';
      let rejected: Set<string>;
      try {
        const answer = await api.post<MembersAnswer>(dataPath(institutionId, `/groups/${groupId}/members`), {
          student_ids: rows.map((row) => row.values.student),
        });
        rejected = new Set(answer.rejected_student_ids);
      } catch (error) {
        if (error instanceof ApiError && error.code === 'no_valid_students') rejected = new Set(rows.map((row) => row.values.student!));
        else throw error;
      }
      return rows.map((row) =>
        rejected.has(row.values.student!)
          ? { line: row.line, values: row.values, rejected: notFound }
          : { line: row.line, values: row.values, created: 'added' },
      );
    },
  };
}

/**
 * The rows of a file under a mapping, each checked: values by field, and the first problem in
 * words. Lines are numbered as a spreadsheet shows them (the header is line 1).
 */
export function planRows(kind: ImportKind, rows: readonly string[][], hasHeader: boolean, mapping: Record<string, number | null>): PlannedRow[] {
  const earlier = new Map<string, number>();
  const body = hasHeader ? rows.slice(1) : rows;
  return body.map((cells, index) => {
    const line = index + (hasHeader ? 2 : 1);
    const values: Record<string, string> = {};
    for (const field of kind.fields) {
      const column = mapping[field.key];
      values[field.key] = column === null || column === undefined ? '' : (cells[column] ?? '');
    }
    return { line, values, problem: kind.check(values, earlier, line) };
  });
}
