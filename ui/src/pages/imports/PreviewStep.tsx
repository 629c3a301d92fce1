import { Alert, Button, Checkbox, Group, Loader, Radio, Select, SimpleGrid, Stack, Text } from '@mantine/core';
import { ModalActions } from '../../components/ModalActions';
import type { PlannedClass } from './classes';
import { MODE_LABELS, type ImportKind, type ImportMode, type PlannedRow } from './importKind';
import { planInWords } from './plan';
import { PreviewTable, ProblemsTable, shownFields, UpdatesTable } from './PreviewTables';
import type { ColumnMapping, ParsedTable } from './table';
import type { ImportPlan, Loaded } from './useImportPlan';

/** A column as the mapping step offers it: its number, and its title or first value. */
function columnLabel(table: ParsedTable, hasHeader: boolean, index: number): string {
  const sample = table.rows[0]?.[index];
  return `Column ${index + 1}${sample ? ` (${hasHeader ? '' : 'e.g. '}${sample.slice(0, 30)})` : ''}`;
}

const names = (classes: readonly PlannedClass[]) => classes.map((schoolClass) => schoolClass.name).join(', ');

/** The second step: which column is which, and what the import will do with every row, before anything is written. */
export function PreviewStep({
  kind,
  loaded,
  plan,
  mode,
  owner,
  acceptedWarning,
  onLoaded,
  onMode,
  onOwner,
  onAcceptWarning,
  onAnotherFile,
  onStart,
  onClose,
}: {
  kind: ImportKind;
  loaded: Loaded;
  plan: ImportPlan;
  mode: ImportMode;
  owner: string | null;
  acceptedWarning: string | null;
  onLoaded(loaded: Loaded): void;
  onMode(mode: ImportMode): void;
  onOwner(owner: string | null): void;
  onAcceptWarning(warning: string | null): void;
  onAnotherFile(): void;
  onStart(rows: PlannedRow[], mapping: ColumnMapping): void;
  onClose(): void;
}) {
  const { planned, counts, blocking, nameWarning, comparisons, classes, newGroups, owners, ownerNeeded, placedClasses, placedCount, unsettled } = plan;
  const columns = Math.max(...loaded.table.rows.map((row) => row.length));
  const columnOptions = Array.from({ length: columns }, (_, index) => ({ value: String(index), label: columnLabel(loaded.table, loaded.hasHeader, index) }));
  const idLabel = kind.fields.find((field) => field.key === 'external_id')?.label ?? 'ID';
  const updatedFields = kind.fields.some((field) => field.key === 'personal_email') ? 'the name and personal e-mail' : 'the name';
  return (
    <Stack>
      <Text size="sm">
        <b>{loaded.name}</b>: {planned.length.toLocaleString()} {planned.length === 1 ? 'row' : 'rows'}
        {loaded.table.delimiter ? `, separated by “${loaded.table.delimiter === '\t' ? 'tab' : loaded.table.delimiter}”.` : ', from its first sheet.'}
      </Text>
      <Checkbox
        label="The first line is a header (column titles)"
        checked={loaded.hasHeader}
        onChange={(event) => onLoaded({ ...loaded, hasHeader: event.currentTarget.checked })}
      />
      {kind.updatable ? (
        <Radio.Group label={`Rows whose ${idLabel} is already someone's`} value={mode} onChange={(value) => onMode(value === 'update' ? 'update' : 'add')}>
          <Group mt={4}>
            <Radio value="add" label={MODE_LABELS.add} description="Those rows are problems, and nobody is changed." />
            <Radio value="update" label={MODE_LABELS.update} description={`Those rows update ${updatedFields}; empty cells change nothing.`} />
          </Group>
        </Radio.Group>
      ) : null}
      <SimpleGrid cols={{ base: 1, sm: Math.min(kind.fields.length, 3) }}>
        {kind.fields.map((field) => (
          <Select
            key={field.key}
            label={field.label}
            description={field.description ?? (field.required ? 'Required' : 'Optional')}
            placeholder="Not imported"
            data={columnOptions}
            value={loaded.mapping[field.key] === null ? null : String(loaded.mapping[field.key])}
            onChange={(value) => onLoaded({ ...loaded, mapping: { ...loaded.mapping, [field.key]: value === null ? null : Number(value) } })}
            clearable={!field.required}
          />
        ))}
      </SimpleGrid>
      {/* Before the counts: rows without a problem can still be half names. */}
      {nameWarning && !blocking ? (
        <Alert color="yellow" role="alert" title="Half names?">
          <Stack gap="xs">
            <Text size="sm">{nameWarning}</Text>
            <Checkbox
              label="Import the names as the preview shows them"
              checked={acceptedWarning === nameWarning}
              onChange={(event) => onAcceptWarning(event.currentTarget.checked ? nameWarning : null)}
            />
          </Stack>
        </Alert>
      ) : null}
      {blocking ? (
        <Alert color="yellow" role="alert">
          {blocking}
        </Alert>
      ) : (
        <>
          <Text size="sm" aria-live="polite">
            {counts.ready} ready to import, {counts.problems} with a problem (not imported).
            {(mode === 'update' || counts.unchanged > 0) && counts.checking === 0 ? ` Of these, ${planInWords(kind, counts, mode)}.` : ''}
          </Text>
          {counts.checking > 0 && !comparisons.isError ? (
            <Group gap="xs">
              <Loader size="xs" />
              <Text size="sm">
                Comparing the personal e-mails of {counts.checking} {counts.checking === 1 ? kind.one : kind.many} already here with the file’s…
              </Text>
            </Group>
          ) : null}
          {comparisons.isError ? (
            <Alert color="red" role="alert">
              The personal e-mails could not be compared with the file’s: {comparisons.error.message}
            </Alert>
          ) : null}
        </>
      )}
      {classes.length > 0 && !blocking ? (
        <Stack gap="xs">
          <Text size="sm" aria-live="polite">
            Classes: {newGroups.length} {newGroups.length === 1 ? 'group' : 'groups'} will be created{newGroups.length > 0 ? ` (${names(newGroups)})` : ''};{' '}
            {placedCount} {placedCount === 1 ? 'student' : 'students'} will be placed in {placedClasses.length}{' '}
            {placedClasses.length === 1 ? 'group' : 'groups'}.
          </Text>
          {ownerNeeded ? (
            <Select
              label="Owner of the new groups"
              description="Every group needs an owning teacher."
              placeholder="Choose a faculty member"
              data={owners.map((teacher) => ({ value: teacher.id, label: `${teacher.full_name} (${teacher.login_email})` }))}
              value={owner}
              onChange={onOwner}
              searchable
            />
          ) : null}
          {newGroups.length > 0 && owners.length === 0 ? (
            <Alert color="yellow" role="alert">
              No active faculty member can own the new groups ({names(newGroups)}), so their students are imported without those classes. Add a faculty member
              first to have them created.
            </Alert>
          ) : null}
        </Stack>
      ) : null}
      <PreviewTable kind={kind} rows={planned} fields={shownFields(kind, loaded.mapping)} />
      {!blocking ? <UpdatesTable rows={planned} idLabel={idLabel} /> : null}
      {!blocking ? <ProblemsTable rows={planned} /> : null}
      <ModalActions onCancel={onClose}>
        <Button variant="default" onClick={() => onAnotherFile()}>
          Another file
        </Button>
        <Button disabled={unsettled} onClick={() => onStart(planned, loaded.mapping)}>
          Import {counts.ready} {counts.ready === 1 ? kind.one : kind.many}
        </Button>
      </ModalActions>
    </Stack>
  );
}
