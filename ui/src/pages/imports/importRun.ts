import type { ClassOutcome, PlacementStep, PlannedClass } from './classes';
import type { ImportKind, ImportMode, PlannedRow, RowOutcome } from './importKind';
import { shownFields } from './PreviewTables';
import { toCsv, type ColumnMapping } from './table';

/** An import under way or ended: what it sends, what has been answered, and where it stopped. */
export interface Run {
  mode: ImportMode;
  mapping: ColumnMapping;
  rows: PlannedRow[];
  /** Rows without problems, by action (`sendingOrder`): what is sent, a chunk at a time. */
  sendable: PlannedRow[];
  /** How many of `sendable` have been sent and answered. */
  sent: number;
  outcomes: RowOutcome[];
  /** The file's classes and who owns the groups they create (null: none can be). */
  classes: PlannedClass[];
  owner: string | null;
  /** The requests placing students in their classes, known once every row is sent. */
  steps: PlacementStep[] | null;
  placedSteps: number;
  placements: ClassOutcome[];
  /** Groups this import created, by class key, so a later step (or Resume) adds to them. */
  createdGroups: Record<string, string>;
  error: string | null;
  running: boolean;
}

const RESULT_WORDS = (kind: ImportKind): Record<RowOutcome['result'], string> => ({
  created: kind.verb,
  updated: 'updated',
  unchanged: kind.unchangedOne,
  rejected: 'rejected',
});

/** The result file: every line of the import, what became of it (and of its class), with the reason in words. */
export function resultFile(kind: ImportKind, run: Run): string {
  const fields = shownFields(kind, run.mapping);
  const withChanges = run.mode === 'update';
  const withClasses = run.classes.length > 0;
  const header = [
    'line',
    ...fields.map((field) => field.label),
    'result',
    'login email',
    ...(withChanges ? ['changed'] : []),
    ...(withClasses ? ['class'] : []),
    'reason',
  ];
  const byLine = new Map(run.outcomes.map((outcome) => [outcome.line, outcome]));
  const placed = new Map(run.placements.map((placement) => [placement.line, placement.words]));
  const words = RESULT_WORDS(kind);
  const lines = run.rows.map((row) => {
    const outcome = byLine.get(row.line);
    const values = fields.map((field) => row.values[field.key] ?? '');
    const [result, email, reason] = row.problem
      ? ['rejected', '', row.problem]
      : !outcome
        ? ['not sent', '', 'The import stopped before this line.']
        : outcome.result === 'rejected'
          ? ['rejected', '', outcome.detail]
          : [words[outcome.result], outcome.detail, ''];
    const changed = outcome?.result === 'updated' ? row.changes.join(', ') : '';
    return [row.line, ...values, result, email, ...(withChanges ? [changed] : []), ...(withClasses ? [placed.get(row.line) ?? ''] : []), reason];
  });
  return toCsv([header, ...lines]);
}

/** Line and reason of every row not imported, in file order: problems found here and refusals of the appliance. */
export function rejectedRows(run: Run): Array<[number, string]> {
  const refused = new Map(run.outcomes.flatMap((outcome) => (outcome.result === 'rejected' ? [[outcome.line, outcome.detail] as const] : [])));
  return run.rows.flatMap((row): Array<[number, string]> => {
    const reason = row.problem ?? refused.get(row.line);
    return reason ? [[row.line, reason]] : [];
  });
}

/** The placing in words: " 51 placed in classes, 3 groups created, 2 already in theirs." */
export function placementsInWords(run: Run): string {
  const count = (placed: ClassOutcome['placed']) => run.placements.filter((placement) => placement.placed === placed).length;
  const created = Object.keys(run.createdGroups).length;
  const parts = [`${count('placed')} placed in classes`, `${created} ${created === 1 ? 'group' : 'groups'} created`];
  if (count('already') > 0) parts.push(`${count('already')} already in theirs`);
  if (count('not placed') > 0) parts.push(`${count('not placed')} not placed`);
  return ` ${parts.join(', ')}.`;
}
