import { strFromU8, unzipSync } from 'fflate';
import Papa from 'papaparse';
import { validationError, type ValidationDetail } from '../../errors.js';
import type { OneRosterSyncKind } from '../../models/oneroster.js';
import type { Roster, SisClass, SisEnrollment, SisUser } from './client.js';

/**
 * OneRoster CSV (1EdTech OneRoster 1.1 and 1.2, CSV binding): a zip with `manifest.csv` and one
 * file per kind of record, each `bulk` (everything the SIS has) or `delta` (what changed, with
 * `status` and `dateLastModified`). The users, classes and enrollments become the same `Roster`
 * the REST sync fetches (client.ts), so one plan, guard and run history serve both
 * (docs/decisions/oneroster-csv.md). orgs, academicSessions and courses are checked for
 * readability and otherwise not used, as the REST sync does not read them either.
 */

/** A zip larger than this once unpacked is refused before it is unpacked (a district's export is a few MB). */
export const CSV_ZIP_LIMITS = { zipBytes: 50 * 1024 * 1024, unpackedBytes: 256 * 1024 * 1024 } as const;
/** At most this many unreadable rows are listed; the count says how many there were. */
const MAX_PROBLEMS = 50;

const FILES = ['users', 'classes', 'enrollments', 'orgs', 'academicSessions', 'courses', 'roles'] as const;
type FileKind = (typeof FILES)[number];
type FileMode = 'bulk' | 'delta' | 'absent';

export interface CsvRoster {
  roster: Roster;
  /** `full` when the records are bulk (what they leave out is suspended), `delta` when they are changes. */
  kind: OneRosterSyncKind;
  version: '1.1' | '1.2';
  /** The files read, with the number of records of each. */
  files: Record<string, number>;
}

type Row = Record<string, string>;

class Problems {
  readonly list: ValidationDetail[] = [];
  count = 0;
  add(file: string, line: number | null, message: string): void {
    this.count += 1;
    if (this.list.length < MAX_PROBLEMS) this.list.push({ path: line === null ? file : `${file}:${line}`, message });
  }
  throwIfAny(): void {
    if (this.count === 0) return;
    const more = this.count > this.list.length ? ` (the first ${this.list.length} of ${this.count} are listed)` : '';
    throw validationError(
      this.list,
      `The OneRoster CSV zip cannot be imported: ${this.list[0]!.path}: ${this.list[0]!.message.replace(/\.$/, '')}${this.count > 1 ? ` and ${this.count - 1} more problem${this.count > 2 ? 's' : ''}${more}` : ''}. Nothing was changed.`,
    );
  }
}

/** The zip's entries that are OneRoster files, by their name without folder, case as written. */
function unpack(bytes: Uint8Array, problems: Problems): Map<string, string> {
  if (bytes.byteLength > CSV_ZIP_LIMITS.zipBytes) {
    problems.add('zip', null, `The file is ${Math.ceil(bytes.byteLength / 1024 / 1024)} MB; at most ${CSV_ZIP_LIMITS.zipBytes / 1024 / 1024} MB is taken.`);
    problems.throwIfAny();
  }
  let unpacked = 0;
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(bytes, {
      filter: (file) => {
        if (!/\.csv$/i.test(file.name)) return false;
        unpacked += file.originalSize;
        if (unpacked > CSV_ZIP_LIMITS.unpackedBytes) throw new RangeError('unpacked size');
        return true;
      },
    });
  } catch (error) {
    problems.add(
      'zip',
      null,
      error instanceof RangeError
        ? `Its CSV files unpack to more than ${CSV_ZIP_LIMITS.unpackedBytes / 1024 / 1024} MB.`
        : 'It is not a zip file that can be read (export the OneRoster CSV zip from the SIS again).',
    );
    problems.throwIfAny();
    return new Map();
  }
  const files = new Map<string, string>();
  for (const [name, data] of Object.entries(entries)) {
    const base = name.split('/').at(-1)!;
    files.set(base.toLowerCase(), strFromU8(data).replace(/^\uFEFF/, ''));
  }
  return files;
}

/** A CSV file's rows by header, each with its line number (the header is line 1). */
function readCsv(file: string, text: string, problems: Problems): Array<{ line: number; row: Row }> {
  const parsed = Papa.parse<Row>(text, { header: true, skipEmptyLines: 'greedy', transformHeader: (header) => header.trim() });
  for (const error of parsed.errors.slice(0, MAX_PROBLEMS)) problems.add(file, typeof error.row === 'number' ? error.row + 2 : null, error.message);
  return parsed.data.map((row, index) => ({ line: index + 2, row }));
}

function readManifest(files: Map<string, string>, problems: Problems): { version: '1.1' | '1.2'; modes: Record<FileKind, FileMode> } {
  const text = files.get('manifest.csv');
  if (text === undefined) {
    problems.add('manifest.csv', null, 'The zip has no manifest.csv: it is not a OneRoster CSV export.');
    problems.throwIfAny();
  }
  const values = new Map<string, string>();
  for (const { row } of readCsv('manifest.csv', text!, problems)) values.set((row.propertyName ?? '').trim(), (row.value ?? '').trim());
  const version = values.get('oneroster.version');
  if (version !== '1.1' && version !== '1.2') {
    problems.add('manifest.csv', null, `oneroster.version is "${version ?? ''}"; 1.1 and 1.2 are read.`);
    problems.throwIfAny();
  }
  const modes = {} as Record<FileKind, FileMode>;
  for (const kind of FILES) {
    const mode = (values.get(`file.${kind}`) ?? 'absent').toLowerCase();
    if (mode !== 'bulk' && mode !== 'delta' && mode !== 'absent') {
      problems.add('manifest.csv', null, `file.${kind} is "${mode}": bulk, delta or absent.`);
      continue;
    }
    modes[kind] = mode;
    if (mode !== 'absent' && !files.has(`${kind.toLowerCase()}.csv`))
      problems.add(`${kind}.csv`, null, `The manifest lists it as ${mode}, and the zip does not hold it.`);
  }
  if (modes.users === 'absent') problems.add('manifest.csv', null, 'file.users is absent: an import needs the users.');
  return { version: version as '1.1' | '1.2', modes };
}

const text = (value: string | undefined): string | null => (value !== undefined && value.trim() !== '' ? value.trim() : null);
const roleOf = (value: string | undefined): 'student' | 'teacher' | 'other' => {
  const role = value?.trim().toLowerCase();
  return role === 'student' || role === 'teacher' ? role : 'other';
};

/** A delta record is `active` or `tobedeleted` (1.1 also says `inactive`); a bulk record has no status, and is active. */
function statusOf(file: string, line: number, row: Row, mode: FileMode, problems: Problems): boolean {
  const status = text(row.status)?.toLowerCase() ?? null;
  if (mode === 'delta' && status === null) problems.add(file, line, 'status is empty: a delta file says active or tobedeleted for each record.');
  if (status !== null && status !== 'active' && status !== 'tobedeleted' && status !== 'inactive') {
    problems.add(file, line, `status is "${row.status}": active or tobedeleted.`);
  }
  return status !== 'tobedeleted' && status !== 'inactive';
}

function required(file: string, line: number, row: Row, column: string, problems: Problems): string | null {
  const value = text(row[column]);
  if (value === null) problems.add(file, line, `${column} is empty.`);
  return value;
}

/** 1.2 keeps roles apart (roles.csv, the primary one first); 1.1 has a `role` column in users.csv. */
function primaryRoles(files: Map<string, string>, problems: Problems): Map<string, 'student' | 'teacher' | 'other'> {
  const roles = new Map<string, { role: 'student' | 'teacher' | 'other'; primary: boolean }>();
  const textOf = files.get('roles.csv');
  if (textOf === undefined) return new Map();
  for (const { line, row } of readCsv('roles.csv', textOf, problems)) {
    const user = required('roles.csv', line, row, 'userSourcedId', problems);
    if (!user) continue;
    const primary = text(row.roleType)?.toLowerCase() === 'primary';
    const known = roles.get(user);
    if (!known || (primary && !known.primary)) roles.set(user, { role: roleOf(row.role), primary });
  }
  return new Map([...roles].map(([user, entry]) => [user, entry.role]));
}

/**
 * Reads a OneRoster CSV zip into a roster. Any unreadable row (an empty sourcedId, a delta record
 * without a status, a malformed line) is reported by file and line, and nothing is imported: a
 * roster read in part would suspend the people of the rows it dropped.
 */
export function readOneRosterZip(bytes: Uint8Array): CsvRoster {
  const problems = new Problems();
  const files = unpack(bytes, problems);
  const { version, modes } = readManifest(files, problems);
  problems.throwIfAny();
  const listed = (['users', 'classes', 'enrollments'] as const).filter((kind) => modes[kind] !== 'absent');
  if (new Set(listed.map((kind) => modes[kind])).size > 1) {
    problems.add('manifest.csv', null, 'users, classes and enrollments mix bulk and delta: export them the same way (all bulk, or all delta).');
    problems.throwIfAny();
  }
  const kind: OneRosterSyncKind = modes.users === 'bulk' ? 'full' : 'delta';
  const counts: Record<string, number> = {};
  const rowsOf = (file: FileKind) => {
    const content = modes[file] === 'absent' ? undefined : files.get(`${file.toLowerCase()}.csv`);
    const rows = content === undefined ? [] : readCsv(`${file}.csv`, content, problems);
    if (content !== undefined) counts[`${file}.csv`] = rows.length;
    return rows;
  };

  const roles = primaryRoles(files, problems);
  const usersText = files.get('users.csv') ?? '';
  const header = usersText.slice(0, usersText.indexOf('\n') === -1 ? undefined : usersText.indexOf('\n'));
  if (!/(^|,)\s*"?role"?\s*(,|$)/.test(header.trim()) && !files.has('roles.csv')) {
    problems.add('users.csv', 1, 'There is no role column (OneRoster 1.1) and no roles.csv (1.2): nobody could be told apart as a student or a teacher.');
  }
  const users: SisUser[] = [];
  for (const { line, row } of rowsOf('users')) {
    const sourcedId = required('users.csv', line, row, 'sourcedId', problems);
    const active = statusOf('users.csv', line, row, modes.users, problems);
    if (!sourcedId) continue;
    const role = 'role' in row ? roleOf(row.role) : (roles.get(sourcedId) ?? 'other');
    users.push({
      sourcedId,
      active: active && text(row.enabledUser)?.toLowerCase() !== 'false',
      dateLastModified: text(row.dateLastModified),
      role,
      givenName: text(row.givenName) ?? '',
      familyName: text(row.familyName) ?? '',
      email: text(row.email),
      identifier: text(row.identifier),
    });
  }
  const classes: SisClass[] = [];
  for (const { line, row } of rowsOf('classes')) {
    const sourcedId = required('classes.csv', line, row, 'sourcedId', problems);
    const active = statusOf('classes.csv', line, row, modes.classes, problems);
    if (!sourcedId) continue;
    classes.push({
      sourcedId,
      active,
      dateLastModified: text(row.dateLastModified),
      title: text(row.title) ?? text(row.classCode) ?? sourcedId,
      classCode: text(row.classCode),
    });
  }
  const enrollments: SisEnrollment[] = [];
  for (const { line, row } of rowsOf('enrollments')) {
    const sourcedId = required('enrollments.csv', line, row, 'sourcedId', problems);
    const userSourcedId = required('enrollments.csv', line, row, 'userSourcedId', problems);
    const classSourcedId = required('enrollments.csv', line, row, 'classSourcedId', problems);
    const active = statusOf('enrollments.csv', line, row, modes.enrollments, problems);
    if (!sourcedId || !userSourcedId || !classSourcedId) continue;
    enrollments.push({
      sourcedId,
      active,
      dateLastModified: text(row.dateLastModified),
      userSourcedId,
      classSourcedId,
      role: roleOf(row.role),
      primary: text(row.primary)?.toLowerCase() === 'true',
    });
  }
  // Read for their shape only: a file the manifest lists must be readable CSV with sourcedIds.
  for (const file of ['orgs', 'academicSessions', 'courses'] as const) {
    for (const { line, row } of rowsOf(file)) {
      required(`${file}.csv`, line, row, 'sourcedId', problems);
      statusOf(`${file}.csv`, line, row, modes[file], problems);
    }
  }
  problems.throwIfAny();
  return { roster: { users, classes, enrollments, skipped: 0 }, kind, version, files: counts };
}
