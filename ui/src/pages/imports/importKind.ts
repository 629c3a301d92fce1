import { MAX_BULK } from '../students/students';
import type { Existing, ImportContext, ImportIndex } from './roster';
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

/** The key of one comparison of a student's personal e-mail with a row's. */
export const emailCheckKey = (personId: string, email: string) => `${personId} ${email.toLowerCase()}`;

/** The rows of one action. */
export const ofAction = (rows: readonly PlannedRow[], action: RowAction) => rows.filter((row) => row.action === action);

/** A person the row leaves as they are. */
export const unchanged = (row: PlannedRow): RowOutcome => ({ line: row.line, result: 'unchanged', id: row.target!.id, detail: row.target!.login_email });
