import { ScrollArea, Table, Text } from '@mantine/core';
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

/** The first rows as they will be imported: the name as stored, and what happens to each. */
export function PreviewTable({ kind, rows, fields }: { kind: ImportKind; rows: readonly PlannedRow[]; fields: readonly ImportField[] }) {
  return (
    <>
      <Text fw={600} size="sm">
        Preview
      </Text>
      <ScrollArea.Autosize mah={240}>
        <Table striped aria-label="Preview" fz="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Line</Table.Th>
              {fields.map((field) => (
                <Table.Th key={field.key}>{field.label}</Table.Th>
              ))}
              <Table.Th>Will be</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.slice(0, 5).map((row) => (
              <Table.Tr key={row.line}>
                <Table.Td>{row.line}</Table.Td>
                {fields.map((field) => (
                  <Table.Td key={field.key}>{row.values[field.key] || '—'}</Table.Td>
                ))}
                <Table.Td>{actionInWords(kind, row)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea.Autosize>
    </>
  );
}

/** One line per row that updates someone: who, and what of theirs changes. A personal e-mail is never shown, only that it changes. */
export function UpdatesTable({ rows, idLabel }: { rows: readonly PlannedRow[]; idLabel: string }) {
  const updates = rows.filter((row) => !row.problem && row.action === 'update');
  if (updates.length === 0) return null;
  return (
    <>
      <Text fw={600} size="sm">
        Updates
      </Text>
      <ScrollArea.Autosize mah={200}>
        <Table aria-label="Updates" fz="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Line</Table.Th>
              <Table.Th>{idLabel}</Table.Th>
              <Table.Th>What changes</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {updates.map((row) => (
              <Table.Tr key={row.line}>
                <Table.Td>{row.line}</Table.Td>
                <Table.Td>{row.values.external_id}</Table.Td>
                <Table.Td>
                  {row.changes
                    .map((change) => (change === 'name' ? `name: ${row.target!.full_name} → ${row.values.full_name}` : `${change}: a new address`))
                    .join('; ')}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea.Autosize>
    </>
  );
}

/** Every row with a problem, by its line and in words: those are not sent. */
export function ProblemsTable({ rows }: { rows: readonly PlannedRow[] }) {
  const problems = rows.filter((row) => row.problem);
  if (problems.length === 0) return null;
  return (
    <>
      <Text fw={600} size="sm">
        Problems
      </Text>
      <ScrollArea.Autosize mah={200}>
        <Table aria-label="Problems" fz="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Line</Table.Th>
              <Table.Th>Problem</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {problems.map((row) => (
              <Table.Tr key={row.line}>
                <Table.Td>{row.line}</Table.Td>
                <Table.Td>{row.problem}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea.Autosize>
    </>
  );
}
