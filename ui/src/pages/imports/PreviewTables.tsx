import { ScrollArea, Table, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { FAMILY, GIVEN } from './names';
import type { ImportKind, PlannedRow } from './kinds';
import type { ColumnMapping, ImportField } from './table';

/**
 * The fields a preview and a result file show: each mapped one, and the name as it will be stored
 * in place of its parts (the file has those already).
 */
export function shownFields(kind: ImportKind, mapping: ColumnMapping): ImportField[] {
  return kind.fields.filter(
    (field) => field.key !== GIVEN && field.key !== FAMILY && (field.key === 'full_name' || field.required || mapping[field.key] !== null),
  );
}

/** What will happen to a row, in words: "created", "updated: name", "already a member (Ada Lovelace)". */
export function actionInWords(kind: ImportKind, row: PlannedRow): string {
  if (row.problem) return 'not imported';
  if (row.checking) return 'comparing the personal e-mail…';
  // A member row names a student the file may give by number only: say who it found.
  const who = !kind.updatable && row.target ? ` (${row.target.full_name})` : '';
  if (row.action === 'update') return `updated: ${row.changes.join(', ')}`;
  return `${row.action === 'create' ? kind.verb : kind.unchangedOne}${who}`;
}

/** A titled table of the preview, scrolling past `height`: a row of cells per item, the first cell its line. */
function PreviewSection({
  title,
  height,
  striped,
  columns,
  rows,
}: {
  title: string;
  height: number;
  striped?: boolean;
  columns: readonly string[];
  rows: ReadonlyArray<[line: number, cells: readonly ReactNode[]]>;
}) {
  return (
    <>
      <Text fw={600} size="sm">
        {title}
      </Text>
      <ScrollArea.Autosize mah={height}>
        <Table striped={striped} aria-label={title} fz="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Line</Table.Th>
              {columns.map((column, index) => (
                <Table.Th key={index}>{column}</Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map(([line, cells]) => (
              <Table.Tr key={line}>
                <Table.Td>{line}</Table.Td>
                {cells.map((cell, index) => (
                  <Table.Td key={index}>{cell}</Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea.Autosize>
    </>
  );
}

/** The first rows as they will be imported: the name as stored, and what happens to each. */
export function PreviewTable({ kind, rows, fields }: { kind: ImportKind; rows: readonly PlannedRow[]; fields: readonly ImportField[] }) {
  return (
    <PreviewSection
      title="Preview"
      height={240}
      striped
      columns={[...fields.map((field) => field.label), 'Will be']}
      rows={rows.slice(0, 5).map((row) => [row.line, [...fields.map((field) => row.values[field.key] || '—'), actionInWords(kind, row)]])}
    />
  );
}

/** One line per row that updates someone: who, and what of theirs changes. A personal e-mail is never shown, only that it changes. */
export function UpdatesTable({ rows, idLabel }: { rows: readonly PlannedRow[]; idLabel: string }) {
  const updates = rows.filter((row) => !row.problem && row.action === 'update');
  if (updates.length === 0) return null;
  const changed = (row: PlannedRow) =>
    row.changes.map((change) => (change === 'name' ? `name: ${row.target!.full_name} → ${row.values.full_name}` : `${change}: a new address`)).join('; ');
  return (
    <PreviewSection
      title="Updates"
      height={200}
      columns={[idLabel, 'What changes']}
      rows={updates.map((row) => [row.line, [row.values.external_id, changed(row)]])}
    />
  );
}

/** Every row with a problem, by its line and in words: those are not sent. */
export function ProblemsTable({ rows }: { rows: readonly PlannedRow[] }) {
  const problems = rows.filter((row) => row.problem);
  if (problems.length === 0) return null;
  return <PreviewSection title="Problems" height={200} columns={['Problem']} rows={problems.map((row) => [row.line, [row.problem]])} />;
}
