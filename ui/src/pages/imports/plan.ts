import {
  CHUNK,
  emailCheckKey,
  ofAction,
  type ImportKind,
  type ImportMode,
  type PlannedRow,
  type PlanState,
  type RowAction,
  type RowOutcome,
} from './importKind';
import { FAMILY, GIVEN, nameMappingProblem } from './names';
import { EMPTY_CONTEXT, indexContext, type Existing, type ImportIndex } from './roster';
import type { ColumnMapping } from './table';

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
