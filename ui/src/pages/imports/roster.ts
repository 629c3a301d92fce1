import { call, portal, type Page } from '../../api/portal';
import type { Faculty } from '../faculty/faculty';
import { PICKER_LIMIT } from '../shared/areas';
import type { Student } from '../students/students';
import { fourAtATime } from './refusals';

/** A person already in the institution, as an import matches rows to them; `external_id` is the school's student or faculty ID. */
export interface Existing {
  id: string;
  login_email: string;
  full_name: string;
  external_id: string | null;
}

export interface GroupRef {
  id: string;
  name: string;
}

/** What an import reads from the appliance before its preview, so every row's fate is known before anything is written. */
export interface ImportContext {
  /** The kind's people: students (for students and members) or faculty. */
  people: Existing[];
  /** Every group, for the students' classes. */
  groups: GroupRef[];
  /** Active faculty: who may own the groups a class column creates. */
  owners: Existing[];
  /** Ids of the students already in the group members are imported into. */
  members: string[];
}

/** An institution with nobody and nothing in it. */
export const EMPTY_CONTEXT: ImportContext = { people: [], groups: [], owners: [], members: [] };

/**
 * Every item of a list, a page of the largest size the API gives at a time (`limit` ≤ 200,
 * server/validation/schemas.ts). Lists are oldest first, so people created while the pages are
 * read come after the ones already read, never in their place.
 */
async function readAll<T>(readPage: (paging: { page: number; limit: number }) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; ; page += 1) {
    const answer = await readPage({ page, limit: PICKER_LIMIT });
    items.push(...answer.items);
    if (page >= answer.totalPages) return items;
  }
}

const student = (row: Student): Existing => ({ id: row.id, login_email: row.login_email, full_name: row.full_name, external_id: row.student_id });
const teacher = (row: Faculty): Existing => ({ id: row.id, login_email: row.login_email, full_name: row.full_name, external_id: row.faculty_id });

/** The institution's students, or a group's with `{ group_id }`. */
export const readStudents = async (institutionId: string, query?: { group_id?: string }) =>
  (
    await readAll((paging) =>
      call(portal.GET('/institutions/{institution}/students', { params: { path: { institution: institutionId }, query: { ...query, ...paging } } })),
    )
  ).map(student);

/** The institution's faculty, or only the active ones with `{ status: 'active' }`. */
export const readFaculty = async (institutionId: string, query?: { status?: Faculty['status'] }) =>
  (
    await readAll((paging) =>
      call(portal.GET('/institutions/{institution}/faculty', { params: { path: { institution: institutionId }, query: { ...query, ...paging } } })),
    )
  ).map(teacher);

export const readGroups = async (institutionId: string): Promise<GroupRef[]> =>
  (await readAll((paging) => call(portal.GET('/institutions/{institution}/groups', { params: { path: { institution: institutionId }, query: paging } })))).map(
    (group) => ({ id: group.id, name: group.name }),
  );

/**
 * Whether a student's personal e-mail is already `email`. It is never answered (docs/api.md), but
 * the list's `email` filter matches it exactly, ignoring case; `student_id` narrows the match to
 * this student, as a family address can be several siblings'.
 */
export async function hasPersonalEmail(institutionId: string, person: Existing, email: string): Promise<boolean> {
  const answer = await call(
    portal.GET('/institutions/{institution}/students', {
      params: { path: { institution: institutionId }, query: { email, student_id: person.external_id ?? undefined, limit: PICKER_LIMIT } },
    }),
  );
  return answer.items.some((item) => item.id === person.id);
}

/** The context in the shapes the rows are matched by. */
export interface ImportIndex {
  byExternalId: ReadonlyMap<string, Existing>;
  /** Login e-mails in lower case: they compare without case, as the API's do. */
  byLoginEmail: ReadonlyMap<string, Existing>;
  byId: ReadonlyMap<string, Existing>;
  /** Groups by `groupKey` of their name; more than one where groups share a name. */
  groupsByName: ReadonlyMap<string, readonly GroupRef[]>;
  owners: readonly Existing[];
  members: ReadonlySet<string>;
}

/**
 * A class names a group by its name, trimmed and without case. Compared here rather than with
 * GET /groups's `q`, a substring match whose case folding is SQLite's lower(), ASCII only: "5ÈME
 * A" would not find "5ème A" there and would become a second group.
 */
export const groupKey = (name: string) => name.trim().toLowerCase();

export function indexContext(context: ImportContext): ImportIndex {
  const groupsByName = new Map<string, GroupRef[]>();
  for (const group of context.groups) {
    const key = groupKey(group.name);
    groupsByName.set(key, [...(groupsByName.get(key) ?? []), group]);
  }
  return {
    byExternalId: new Map(context.people.flatMap((person) => (person.external_id ? [[person.external_id, person] as const] : []))),
    byLoginEmail: new Map(context.people.map((person) => [person.login_email.toLowerCase(), person])),
    byId: new Map(context.people.map((person) => [person.id, person])),
    groupsByName,
    owners: context.owners,
    members: new Set(context.members),
  };
}

/** The student a member value names: their appliance id, their login e-mail (any case) or the school's student number. */
export function resolveStudent(index: ImportIndex, value: string): Existing | undefined {
  return index.byId.get(value) ?? index.byLoginEmail.get(value.toLowerCase()) ?? index.byExternalId.get(value);
}

/** Each comparison of a student's personal e-mail with a row's, by its key: a few requests at a time, once per file and mode. */
export async function compareEmails(
  institutionId: string,
  checks: ReadonlyArray<{ key: string; person: Existing; email: string }>,
): Promise<Map<string, boolean>> {
  const answers = await fourAtATime(checks, (check) => hasPersonalEmail(institutionId, check.person, check.email));
  return new Map(checks.map((check, index) => [check.key, answers[index]!]));
}
