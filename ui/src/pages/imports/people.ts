import { call, portal } from '../../api/portal';
import { messageInWords } from '../../api/fieldErrors';
import { CLASS, classField, classProblem } from './classes';
import {
  emailCheckKey,
  MODE_LABELS,
  ofAction,
  unchanged,
  type ImportKind,
  type PlannedRow,
  type PlanState,
  type RowAction,
  type RowOutcome,
} from './importKind';
import { familyNameField, givenNameField, nameOfRow } from './names';
import { fourAtATime, refusalInWords } from './refusals';
import { EMPTY_CONTEXT, readFaculty, readGroups, readStudents } from './roster';
import type { ImportField } from './table';

/** Students and faculty members: created, or in update mode found by their ID and updated. */

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The API's fields as the import's columns are labelled, for its refusals' words. */
const IMPORT_LABELS = { full_name: 'Name', student_id: 'Student ID', faculty_id: 'Faculty ID', personal_email: 'Personal e-mail' } as const;

/** A refused row's message in words, its fields by their labels (as every form's: ui/src/api/fieldErrors.ts). */
export function inWords(message: string): string {
  return messageInWords(message, IMPORT_LABELS);
}

const capitalized = (text: string) => `${text[0]!.toUpperCase()}${text.slice(1)}`;

function personProblem(values: Record<string, string>, earlier: Map<string, number>, line: number, idLabel: string): string | null {
  const name = values.full_name ?? '';
  if (!name) return 'The name is missing.';
  if (name.length > 200) return 'The name is longer than 200 characters.';
  const id = values.external_id ?? '';
  if (id.length > 100) return `The ${idLabel} is longer than 100 characters.`;
  if (id && earlier.has(id)) return `${capitalized(idLabel)} ${id} is also on line ${earlier.get(id)}.`;
  const email = values.personal_email ?? '';
  if (email && (!EMAIL.test(email) || email.length > 320)) return `"${email}" is not an e-mail address.`;
  if (id) earlier.set(id, line);
  return null;
}

/**
 * A student or faculty row: created when its ID is new (or it has none); with an ID already
 * someone's, updated or unchanged in update mode, and a problem otherwise, said before anything
 * is written. An empty cell never clears what the appliance has.
 */
function planPerson(values: Record<string, string>, line: number, state: PlanState, idLabel: string): Omit<PlannedRow, 'line'> {
  const stored: Record<string, string> = { ...values, full_name: nameOfRow(values, state.mapping) };
  const row = { values: stored, action: 'create' as RowAction, target: null, changes: [], checking: false };
  const problem = personProblem(stored, state.seen, line, idLabel) ?? (stored[CLASS] ? classProblem(stored[CLASS], state.index) : null);
  const id = stored.external_id;
  const existing = id ? state.index.byExternalId.get(id) : undefined;
  if (problem || !existing) return { ...row, problem };
  if (state.mode === 'add') {
    return { ...row, problem: `${capitalized(idLabel)} ${id} is already ${existing.full_name}'s; choose "${MODE_LABELS.update}" to update.` };
  }
  const changes = existing.full_name === stored.full_name ? [] : ['name'];
  const email = stored.personal_email;
  const sameEmail = email ? state.sameEmail.get(emailCheckKey(existing.id, email)) : true;
  if (sameEmail === false) changes.push('personal e-mail');
  return { ...row, problem: null, target: existing, changes, checking: sameEmail === undefined, action: changes.length > 0 ? 'update' : 'unchanged' };
}

const optional = (value: string | undefined) => (value ? value : undefined);

/** PATCHes what changed of the row's person (`patch` sends it for their id); a refusal is the row's outcome. */
async function update(row: PlannedRow, patch: (id: string) => Promise<unknown>): Promise<RowOutcome> {
  try {
    await patch(row.target!.id);
    return { line: row.line, result: 'updated', id: row.target!.id, detail: row.target!.login_email };
  } catch (error) {
    return { line: row.line, result: 'rejected', id: null, detail: refusalInWords(error, IMPORT_LABELS) };
  }
}

async function createStudents(institutionId: string, rows: readonly PlannedRow[]): Promise<RowOutcome[]> {
  if (rows.length === 0) return [];
  const answer = await call(
    portal.POST('/institutions/{institution}/students/bulk', {
      params: { path: { institution: institutionId } },
      body: {
        students: rows.map((row) => ({
          full_name: row.values.full_name,
          student_id: optional(row.values.external_id),
          personal_email: optional(row.values.personal_email),
        })),
      },
    }),
  );
  return answer.results.map((result) => {
    const row = rows[result.index]!;
    return 'error' in result
      ? { line: row.line, result: 'rejected', id: null, detail: inWords(result.message) }
      : { line: row.line, result: 'created', id: result.id, detail: result.login_email };
  });
}

const nameFields = (fullNameTitles: string[]): ImportField[] => [
  { key: 'full_name', label: 'Name', description: 'Required, or given + family', titles: fullNameTitles },
  givenNameField,
  familyNameField,
];

export const studentImport: ImportKind = {
  one: 'student',
  many: 'students',
  verb: 'created',
  unchangedOne: 'unchanged',
  unchanged: 'unchanged',
  updatable: true,
  fields: [
    ...nameFields(['name', 'full name', 'student name', 'student', 'pupil', 'pupil name', 'nom complet', 'nombre completo']),
    { key: 'external_id', label: 'Student ID', titles: ['student id', 'student number', 'id', 'sis id', 'student_id', 'number', 'student no', 'matricule'] },
    {
      key: 'personal_email',
      label: 'Personal e-mail',
      titles: ['personal email', 'email', 'e-mail', 'family email', 'parent email', 'home email', 'courriel'],
    },
    classField,
  ],
  load: async (institutionId) => {
    const [people, groups, owners] = await Promise.all([
      readStudents(institutionId),
      readGroups(institutionId),
      readFaculty(institutionId, { status: 'active' }),
    ]);
    return { ...EMPTY_CONTEXT, people, groups, owners };
  },
  plan: (values, line, state) => planPerson(values, line, state, 'student ID'),
  async send(institutionId, rows) {
    const created = await createStudents(institutionId, ofAction(rows, 'create'));
    const updated = await fourAtATime(ofAction(rows, 'update'), (row) =>
      update(row, (id) =>
        call(
          portal.PATCH('/institutions/{institution}/students/{id}', {
            params: { path: { institution: institutionId, id } },
            body: {
              ...(row.changes.includes('name') ? { full_name: row.values.full_name! } : {}),
              ...(row.changes.includes('personal e-mail') ? { personal_email: row.values.personal_email! } : {}),
            },
          }),
        ),
      ),
    );
    return [...created, ...updated, ...ofAction(rows, 'unchanged').map(unchanged)];
  },
};

/** Creates one faculty member (there is no bulk endpoint for faculty); a refusal is the row's outcome. */
async function createTeacher(institutionId: string, row: PlannedRow): Promise<RowOutcome> {
  try {
    const created = await call(
      portal.POST('/institutions/{institution}/faculty', {
        params: { path: { institution: institutionId } },
        body: { full_name: row.values.full_name!, faculty_id: optional(row.values.external_id) },
      }),
    );
    return { line: row.line, result: 'created', id: created.id, detail: created.login_email };
  } catch (error) {
    return { line: row.line, result: 'rejected', id: null, detail: refusalInWords(error, IMPORT_LABELS) };
  }
}

export const facultyImport: ImportKind = {
  one: 'faculty member',
  many: 'faculty members',
  verb: 'created',
  unchangedOne: 'unchanged',
  unchanged: 'unchanged',
  updatable: true,
  fields: [
    ...nameFields(['name', 'full name', 'teacher', 'teacher name', 'faculty name', 'staff name']),
    { key: 'external_id', label: 'Faculty ID', titles: ['faculty id', 'teacher id', 'staff id', 'id', 'employee id', 'faculty_id'] },
  ],
  load: async (institutionId) => ({ ...EMPTY_CONTEXT, people: await readFaculty(institutionId) }),
  plan: (values, line, state) => planPerson(values, line, state, 'faculty ID'),
  async send(institutionId, rows) {
    const created = await fourAtATime(ofAction(rows, 'create'), (row) => createTeacher(institutionId, row));
    const updated = await fourAtATime(ofAction(rows, 'update'), (row) =>
      update(row, (id) =>
        call(
          portal.PATCH('/institutions/{institution}/faculty/{id}', {
            params: { path: { institution: institutionId, id } },
            body: { full_name: row.values.full_name! },
          }),
        ),
      ),
    );
    return [...created, ...updated, ...ofAction(rows, 'unchanged').map(unchanged)];
  },
};
