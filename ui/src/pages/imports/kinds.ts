import { api } from '../../api/client';
import { ApiError } from '../../api/errors';
import { messageInWords } from '../../api/fieldErrors';
import type { GroupMembersAdded } from '../groups/groups';
import { MAX_BULK, type BulkResult } from '../students/students';
import { dataPath } from '../shared/areas';
import { CLASS, classField, classProblem } from './classes';
import { FAMILY, familyNameField, GIVEN, givenNameField, nameMappingProblem, nameOfRow } from './names';
import { fourAtATime, refusalInWords } from './refusals';
import {
  EMPTY_CONTEXT,
  indexContext,
  readFaculty,
  readGroups,
  readStudents,
  resolveStudent,
  type Existing,
  type ImportContext,
  type ImportIndex,
} from './roster';
import type { ColumnMapping, ImportField } from './table';

/** "Add new people only", or also update the people whose student or faculty ID the file has. */
export type ImportMode = 'add' | 'update';

export const MODE_LABELS: Record<ImportMode, string> = { add: 'Add new people only', update: 'Add new and update existing' };

/** What the import does with a row that has no problem; members are "created" when added, "unchanged" when already in the group. */
export type RowAction = 'create' | 'update' | 'unchanged';

/** One line of the file, with its values by field, what will be done with it, and what is wrong with it, in words. */
export interface PlannedRow {
  /** The line number in the file, counting the header. */
  line: number;
  /** Values by field; `full_name` is the name as it will be stored. */
  values: Record<string, string>;
  problem: string | null;
  action: RowAction;
  /** The person the row updates or leaves as they are; for members, the student the row names. */
  target: Existing | null;
  /** What an update changes, in words: "name", "personal e-mail". */
  changes: string[];
  /** The row's personal e-mail is still being compared with the student's, so its action is not known yet. */
  checking: boolean;
}

/** What became of one row, and the person it concerns (their login e-mail), or why it was rejected. */
export interface RowOutcome {
  line: number;
  result: 'created' | 'updated' | 'unchanged' | 'rejected';
  /** The person's id (for placing them in their class); null when rejected. */
  id: string | null;
  /** The person's login e-mail, or the reason the row was rejected. */
  detail: string;
}

/** What the plan of a row knows beyond the row: the appliance's people and groups, the mode, and what was seen on earlier lines. */
export interface PlanState {
  mapping: ColumnMapping;
  mode: ImportMode;
  index: ImportIndex;
  /** Whether a student's personal e-mail already is the row's, by `emailCheckKey`; absent: not compared yet. */
  sameEmail: ReadonlyMap<string, boolean>;
  /** Values that must be unique in the file, to the line they were first seen on. */
  seen: Map<string, number>;
}

/** Rows sent per request: the students bulk endpoint's limit. */
export const CHUNK = MAX_BULK;

export interface ImportKind {
  /** "student", "students" */
  one: string;
  many: string;
  fields: ImportField[];
  /** What happens to a row that goes in: "created", "added". */
  verb: string;
  /** What a row that changes nothing is, of one and of many: "unchanged", "already a member" / "already members". */
  unchangedOne: string;
  unchanged: string;
  /** Whether re-imports can update people found by their ID ("Add new and update existing"). */
  updatable: boolean;
  /** Reads what the rows are matched against, before the preview. */
  load(institutionId: string): Promise<ImportContext>;
  /** The row on `line`: its values as they will be sent, its action and its problem. */
  plan(values: Record<string, string>, line: number, state: PlanState): Omit<PlannedRow, 'line'>;
  /** Writes up to CHUNK rows without problems; answers each one's outcome. */
  send(institutionId: string, rows: readonly PlannedRow[]): Promise<RowOutcome[]>;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The API's fields as the import's columns are labelled, for its refusals' words. */
const IMPORT_LABELS = { full_name: 'Name', student_id: 'Student ID', faculty_id: 'Faculty ID', personal_email: 'Personal e-mail' } as const;

/** A refused row's message in words, its fields by their labels (as every form's: ui/src/api/fieldErrors.ts). */
export function inWords(message: string): string {
  return messageInWords(message, IMPORT_LABELS);
}

/** The key of one comparison of a student's personal e-mail with a row's. */
export const emailCheckKey = (personId: string, email: string) => `${personId} ${email.toLowerCase()}`;

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

/** A person the row leaves as they are. */
const unchanged = (row: PlannedRow): RowOutcome => ({ line: row.line, result: 'unchanged', id: row.target!.id, detail: row.target!.login_email });

/** PATCHes what changed of the row's person; a refusal is the row's outcome. */
async function update(institutionId: string, path: string, row: PlannedRow, body: Record<string, string>): Promise<RowOutcome> {
  try {
    await api.patch(dataPath(institutionId, `${path}/${row.target!.id}`), body);
    return { line: row.line, result: 'updated', id: row.target!.id, detail: row.target!.login_email };
  } catch (error) {
    return { line: row.line, result: 'rejected', id: null, detail: refusalInWords(error, IMPORT_LABELS) };
  }
}

async function createStudents(institutionId: string, rows: readonly PlannedRow[]): Promise<RowOutcome[]> {
  if (rows.length === 0) return [];
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
      ? { line: row.line, result: 'rejected', id: null, detail: inWords(result.message) }
      : { line: row.line, result: 'created', id: result.id, detail: result.login_email };
  });
}

const ofAction = (rows: readonly PlannedRow[], action: RowAction) => rows.filter((row) => row.action === action);

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
      update(institutionId, '/students', row, {
        ...(row.changes.includes('name') ? { full_name: row.values.full_name! } : {}),
        ...(row.changes.includes('personal e-mail') ? { personal_email: row.values.personal_email! } : {}),
      }),
    );
    return [...created, ...updated, ...ofAction(rows, 'unchanged').map(unchanged)];
  },
};

/** Creates one faculty member (there is no bulk endpoint for faculty); a refusal is the row's outcome. */
async function createTeacher(institutionId: string, row: PlannedRow): Promise<RowOutcome> {
  try {
    const created = await api.post<{ id: string; login_email: string }>(dataPath(institutionId, '/faculty'), {
      full_name: row.values.full_name,
      faculty_id: optional(row.values.external_id),
    });
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
    const updated = await fourAtATime(ofAction(rows, 'update'), (row) => update(institutionId, '/faculty', row, { full_name: row.values.full_name! }));
    return [...created, ...updated, ...ofAction(rows, 'unchanged').map(unchanged)];
  },
};

/**
 * A member row: the value names a student by the school's student number, their login e-mail or
 * their appliance id, resolved against the roster read before the preview; one that names nobody
 * is a problem there. The ids resolved are what `POST /groups/{id}/members` is sent.
 */
function planMember(values: Record<string, string>, line: number, state: PlanState): Omit<PlannedRow, 'line'> {
  const row = { values, action: 'create' as RowAction, target: null, changes: [], checking: false };
  const value = values.student ?? '';
  if (!value) return { ...row, problem: 'The student is missing.' };
  // Values and the students they name are remembered apart: an id is both.
  const sameValue = state.seen.get(`value ${value}`);
  if (sameValue !== undefined) return { ...row, problem: `${value} is also on line ${sameValue}.` };
  state.seen.set(`value ${value}`, line);
  const student = resolveStudent(state.index, value);
  if (!student) return { ...row, problem: `No student has the student number, login e-mail or id "${value}".` };
  const sameStudent = state.seen.get(`student ${student.id}`);
  if (sameStudent !== undefined) return { ...row, problem: `${value} is ${student.full_name}, who is also on line ${sameStudent}.` };
  state.seen.set(`student ${student.id}`, line);
  return { ...row, problem: null, target: student, action: state.index.members.has(student.id) ? 'unchanged' : 'create' };
}

/** Members of one group, by the school's student number, login e-mail or id. */
export function memberImport(groupId: string): ImportKind {
  return {
    one: 'member',
    many: 'members',
    verb: 'added',
    unchangedOne: 'already a member',
    unchanged: 'already members',
    updatable: false,
    fields: [
      {
        key: 'student',
        label: 'Student (student number, login e-mail or id)',
        required: true,
        titles: ['student', 'student number', 'student id', 'student_id', 'sis id', 'number', 'login email', 'email', 'student email', 'id', 'matricule'],
      },
    ],
    load: async (institutionId) => {
      const [people, members] = await Promise.all([readStudents(institutionId), readStudents(institutionId, { group_id: groupId })]);
      return { ...EMPTY_CONTEXT, people, members: members.map((member) => member.id) };
    },
    plan: planMember,
    async send(institutionId, rows) {
      const adding = ofAction(rows, 'create');
      const outcome = (row: PlannedRow, result: RowOutcome['result'], detail = row.target!.login_email): RowOutcome => ({
        line: row.line,
        result,
        id: result === 'rejected' ? null : row.target!.id,
        detail,
      });
      const gone = 'The student no longer exists.';
      let answer: GroupMembersAdded | null = null;
      try {
        if (adding.length > 0) {
          answer = await api.post<GroupMembersAdded>(dataPath(institutionId, `/groups/${groupId}/members`), {
            student_ids: adding.map((row) => row.target!.id),
          });
        }
      } catch (error) {
        // Every one already in (added since the preview) or none still there: each row says which.
        if (!(error instanceof ApiError) || !['already_added', 'no_valid_students'].includes(error.code)) throw error;
        const result = error.code === 'already_added' ? 'unchanged' : 'rejected';
        return [...adding.map((row) => outcome(row, result, result === 'rejected' ? gone : undefined)), ...ofAction(rows, 'unchanged').map(unchanged)];
      }
      const added = new Set(answer?.added);
      const rejected = new Set(answer?.rejected_student_ids);
      return [
        ...adding.map((row) =>
          added.has(row.target!.id) ? outcome(row, 'created') : rejected.has(row.target!.id) ? outcome(row, 'rejected', gone) : outcome(row, 'unchanged'),
        ),
        ...ofAction(rows, 'unchanged').map(unchanged),
      ];
    },
  };
}

/** The mapping's trouble that no import can go on with, in words, or null: a required column not chosen, or names chosen twice. */
export function mappingProblem(kind: ImportKind, mapping: ColumnMapping): string | null {
  const missing = kind.fields.filter((field) => field.required && mapping[field.key] === null);
  if (missing.length > 0) return `Choose the column of: ${missing.map((field) => field.label).join(', ')}.`;
  return hasNameParts(kind) ? nameMappingProblem(mapping) : null;
}

/** Whether the kind imports names, which may come in a given-name and a family-name column. */
export const hasNameParts = (kind: ImportKind) => kind.fields.some((field) => field.key === GIVEN || field.key === FAMILY);

/** How the plan is made beyond the file: by default, add-only into an institution with nobody in it. */
export interface PlanSettings {
  mode: ImportMode;
  index: ImportIndex;
  sameEmail: ReadonlyMap<string, boolean>;
}

const NOBODY: PlanSettings = { mode: 'add', index: indexContext(EMPTY_CONTEXT), sameEmail: new Map() };

/**
 * The rows of a file under a mapping, each planned: values by field, the action, and the first
 * problem in words. Lines are numbered as a spreadsheet shows them (the header is line 1).
 */
export function planRows(
  kind: ImportKind,
  rows: readonly string[][],
  hasHeader: boolean,
  mapping: ColumnMapping,
  settings: PlanSettings = NOBODY,
): PlannedRow[] {
  const state: PlanState = { ...settings, mapping, seen: new Map() };
  const body = hasHeader ? rows.slice(1) : rows;
  return body.map((cells, index) => {
    const line = index + (hasHeader ? 2 : 1);
    const values: Record<string, string> = {};
    for (const field of kind.fields) {
      const column = mapping[field.key];
      values[field.key] = column === null || column === undefined ? '' : (cells[column] ?? '');
    }
    return { line, ...kind.plan(values, line, state) };
  });
}

const ACTION_ORDER: readonly RowAction[] = ['create', 'update', 'unchanged'];

/** The rows to send, those to create first, then those to update, then those left as they are, each in file order. */
export function sendingOrder(rows: readonly PlannedRow[]): PlannedRow[] {
  const ready = rows.filter((row) => !row.problem);
  return ACTION_ORDER.flatMap((action) => ofAction(ready, action));
}

/**
 * The next chunk from `sent` on: at most CHUNK rows of one action. A chunk that stops on the way
 * is then one bulk creation (written whole or not at all) or updates (safe to send again), so
 * Resume never creates again what a chunk's half already created.
 */
export function nextChunk(sendable: readonly PlannedRow[], sent: number): PlannedRow[] {
  const action = sendable[sent]?.action;
  const chunk: PlannedRow[] = [];
  for (let at = sent; at < sendable.length && chunk.length < CHUNK && sendable[at]!.action === action; at += 1) chunk.push(sendable[at]!);
  return chunk;
}

/** The personal e-mails to compare with the students' before the plan is final: one per row still `checking`. */
export function emailChecks(rows: readonly PlannedRow[]): Array<{ key: string; person: Existing; email: string }> {
  return rows.flatMap((row) =>
    row.checking && row.target
      ? [{ key: emailCheckKey(row.target.id, row.values.personal_email!), person: row.target, email: row.values.personal_email! }]
      : [],
  );
}

/** How many rows the plan creates, updates and leaves, and of the updates, how many change each field. */
export interface PlanCounts {
  ready: number;
  problems: number;
  create: number;
  update: number;
  unchanged: number;
  checking: number;
  changes: Map<string, number>;
}

export function countPlan(rows: readonly PlannedRow[]): PlanCounts {
  const counts: PlanCounts = { ready: 0, problems: 0, create: 0, update: 0, unchanged: 0, checking: 0, changes: new Map() };
  for (const row of rows) {
    if (row.problem) {
      counts.problems += 1;
      continue;
    }
    counts.ready += 1;
    counts[row.action] += 1;
    if (row.checking) counts.checking += 1;
    for (const change of row.changes) counts.changes.set(change, (counts.changes.get(change) ?? 0) + 1);
  }
  return counts;
}

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** The rows that will be imported by what happens to them: "1 will be created, 2 updated (name 2, personal e-mail 1), 45 unchanged". */
export function planInWords(kind: ImportKind, counts: PlanCounts, mode: ImportMode): string {
  const changes = [...counts.changes].map(([field, count]) => `${field} ${count}`).join(', ');
  return [
    `${counts.create} will be ${kind.verb}`,
    ...(mode === 'update' ? [`${counts.update} updated${changes ? ` (${changes})` : ''}`] : []),
    `${counts.unchanged} ${kind.unchanged}`,
  ].join(', ');
}

/** The end of an import in words: "3 students created, 2 updated, 45 unchanged, 1 rejected". */
export function outcomesInWords(kind: ImportKind, outcomes: readonly RowOutcome[], rejectedInPreview: number, mode: ImportMode): string {
  const count = (result: RowOutcome['result']) => outcomes.filter((outcome) => outcome.result === result).length;
  const created = count('created');
  return [
    `${plural(created, kind.one, kind.many)} ${kind.verb}`,
    ...(mode === 'update' ? [`${count('updated')} updated`] : []),
    ...(count('unchanged') > 0 || mode === 'update' ? [`${count('unchanged')} ${kind.unchanged}`] : []),
    `${count('rejected') + rejectedInPreview} rejected`,
  ].join(', ');
}
