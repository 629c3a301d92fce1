import { Alert, Button, Checkbox, Group, Loader, Modal, Paper, Progress, Radio, ScrollArea, Select, SimpleGrid, Stack, Table, Text } from '@mantine/core';
import { useQuery, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useMemo, useRef, useState, type DragEvent } from 'react';
import { ModalActions } from '../../components/ModalActions';
import { useInstitution } from '../../session';
import { areaKey } from '../shared/areas';
import { CLASS, placementSteps, place, planClasses, type ClassOutcome, type PlacementStep, type PlannedClass } from './classes';
import {
  countPlan,
  emailChecks,
  hasNameParts,
  mappingProblem,
  MODE_LABELS,
  nextChunk,
  outcomesInWords,
  planInWords,
  planRows,
  sendingOrder,
  type ImportKind,
  type ImportMode,
  type PlannedRow,
  type RowOutcome,
} from './kinds';
import { FAMILY, GIVEN, namePartWarning, preferNameParts } from './names';
import { PreviewTable, ProblemsTable, shownFields, UpdatesTable } from './PreviewTables';
import { ACCEPTED_FILES, readImportFile } from './readFile';
import { compareEmails, indexContext, type ImportContext } from './roster';
import { guessMapping, looksLikeHeader, toCsv, type ColumnMapping, type ParsedTable } from './table';

interface Loaded {
  name: string;
  table: ParsedTable;
  hasHeader: boolean;
  mapping: ColumnMapping;
  /** The appliance's people and groups, read with the file: the preview is planned against them. */
  context: ImportContext;
  /** When they were read; the personal e-mails are compared again for each file. */
  readAt: number;
}

interface Run {
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

/** A column as the mapping step offers it: its number, and its title or first value. */
function columnLabel(table: ParsedTable, hasHeader: boolean, index: number): string {
  const sample = table.rows[0]?.[index];
  return `Column ${index + 1}${sample ? ` (${hasHeader ? '' : 'e.g. '}${sample.slice(0, 30)})` : ''}`;
}

const RESULT_WORDS = (kind: ImportKind): Record<RowOutcome['result'], string> => ({
  created: kind.verb,
  updated: 'updated',
  unchanged: kind.unchangedOne,
  rejected: 'rejected',
});

/** The result file: every line of the import, what became of it (and of its class), with the reason in words. */
function resultFile(kind: ImportKind, run: Run): string {
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
function rejectedRows(run: Run): Array<[number, string]> {
  const refused = new Map(run.outcomes.flatMap((outcome) => (outcome.result === 'rejected' ? [[outcome.line, outcome.detail] as const] : [])));
  return run.rows.flatMap((row): Array<[number, string]> => {
    const reason = row.problem ?? refused.get(row.line);
    return reason ? [[row.line, reason]] : [];
  });
}

/** The placing in words: " 51 placed in classes, 3 groups created, 2 already in theirs." */
function placementsInWords(run: Run): string {
  const count = (placed: ClassOutcome['placed']) => run.placements.filter((placement) => placement.placed === placed).length;
  const created = Object.keys(run.createdGroups).length;
  const parts = [`${count('placed')} placed in classes`, `${created} ${created === 1 ? 'group' : 'groups'} created`];
  if (count('already') > 0) parts.push(`${count('already')} already in theirs`);
  if (count('not placed') > 0) parts.push(`${count('not placed')} not placed`);
  return ` ${parts.join(', ')}.`;
}

function download(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

const STOPPED_IN_ROWS =
  'A chunk is written whole or not at all. Resume sends the stopped chunk again; if the appliance had written it before the connection broke, its rows that have an ID come back as already taken.';
const STOPPED_IN_CLASSES = 'Every row is written. Resume goes on placing the students in their classes from the group where it stopped.';

const NO_COMPARISONS: ReadonlyMap<string, boolean> = new Map();

/** The columns an import takes, for the first step: "Name (or given and family names), Student ID (optional), …". */
function columnsInWords(kind: ImportKind): string {
  return kind.fields
    .filter((field) => field.key !== GIVEN && field.key !== FAMILY)
    .map((field) => {
      if (field.key === 'full_name') return 'Name (or given and family names)';
      return `${field.label}${field.required ? '' : ' (optional)'}`;
    })
    .join(', ');
}

const names = (classes: readonly PlannedClass[]) => classes.map((schoolClass) => schoolClass.name).join(', ');

/**
 * Importing people from a CSV or Excel (.xlsx) file (docs/install.md#importing-people-from-a-spreadsheet): choose or drop the file, check which
 * column is which, see each line's fate (created, updated, unchanged) or problem before anything is written, then import in chunks
 * (`nextChunk`) with a progress bar, and place the students in their classes. An error stops the import where it is, and Resume goes on from that
 * chunk; the result file lists every line, with what became of it or why not.
 */
export function ImportWizard({ kind, opened, onClose, invalidate }: { kind: ImportKind; opened: boolean; onClose(): void; invalidate: QueryKey[] }) {
  const institution = useInstitution();
  const queryClient = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [reading, setReading] = useState(false);
  const [fileError, setFileError] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const [mode, setMode] = useState<ImportMode>('add');
  const [owner, setOwner] = useState<string | null>(null);
  /** The name warning the user chose to import with, as it was worded. */
  const [acceptedWarning, setAcceptedWarning] = useState<string | null>(null);
  const [run, setRun] = useState<Run | null>(null);

  const close = () => {
    if (run?.running) return;
    setLoaded(null);
    setFileError(null);
    setRun(null);
    setMode('add');
    setOwner(null);
    setAcceptedWarning(null);
    onClose();
  };

  const readFile = async (file: File | undefined) => {
    if (!file) return;
    setFileError(null);
    setReading(true);
    try {
      const table = await readImportFile(file);
      if (table.rows.length === 0) throw new Error(`${file.name} has no rows.`);
      const hasHeader = looksLikeHeader(table.rows[0], kind.fields);
      const columns = Math.max(...table.rows.map((row) => row.length));
      const mapping = preferNameParts(guessMapping(kind.fields, hasHeader ? table.rows[0]! : null, columns));
      const context = await kind.load(institution.id);
      setLoaded({ name: file.name, table, hasHeader, mapping, context, readAt: Date.now() });
    } catch (error) {
      setFileError(error instanceof Error ? error.message : String(error));
    } finally {
      setReading(false);
    }
  };

  const drop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    void readFile(event.dataTransfer.files[0]);
  };

  const context = loaded?.context;
  const index = useMemo(() => (context ? indexContext(context) : null), [context]);
  const draft = useMemo(
    () => (loaded && index ? planRows(kind, loaded.table.rows, loaded.hasHeader, loaded.mapping, { mode, index, sameEmail: NO_COMPARISONS }) : []),
    [kind, loaded, index, mode],
  );
  // Personal e-mails are never answered, so each one of an update is compared by the appliance before the preview is final.
  const wanted = useMemo(() => emailChecks(draft), [draft]);
  const comparisons = useQuery({
    queryKey: ['import-emails', institution.id, loaded?.readAt, wanted.map((check) => check.key)],
    queryFn: () => compareEmails(institution.id, wanted),
    enabled: wanted.length > 0,
  });
  const planned = useMemo(
    () =>
      loaded && index && comparisons.data
        ? planRows(kind, loaded.table.rows, loaded.hasHeader, loaded.mapping, { mode, index, sameEmail: comparisons.data })
        : draft,
    [kind, loaded, index, mode, comparisons.data, draft],
  );
  const counts = countPlan(planned);
  const blocking = loaded ? mappingProblem(kind, loaded.mapping) : null;
  const header = loaded?.hasHeader ? loaded.table.rows[0]! : null;
  const nameWarning = loaded && hasNameParts(kind) ? namePartWarning(kind.fields, header, loaded.mapping) : null;
  const classes = useMemo(
    () => (loaded && index && loaded.mapping[CLASS] !== null && loaded.mapping[CLASS] !== undefined ? planClasses(planned, index) : []),
    [loaded, index, planned],
  );
  const newGroups = classes.filter((schoolClass) => !schoolClass.group);
  const owners = index?.owners ?? [];
  const ownerNeeded = newGroups.length > 0 && owners.length > 0;
  // Without an owner for them, new groups are not made and their students stay without a class.
  const placedClasses = classes.filter((schoolClass) => schoolClass.group || owners.length > 0);
  const placedCount = placedClasses.reduce((sum, schoolClass) => sum + schoolClass.lines.length, 0);
  const unsettled =
    blocking !== null ||
    counts.ready === 0 ||
    counts.checking > 0 ||
    comparisons.isError ||
    (nameWarning !== null && acceptedWarning !== nameWarning) ||
    (ownerNeeded && owner === null);

  const go = async (start: Run) => {
    let current: Run = { ...start, running: true, error: null };
    setRun(current);
    const stop = (error: unknown) => setRun({ ...current, running: false, error: error instanceof Error ? error.message : String(error) });
    while (current.sent < current.sendable.length) {
      const chunk = nextChunk(current.sendable, current.sent);
      try {
        const outcomes = await kind.send(institution.id, chunk);
        current = { ...current, sent: current.sent + chunk.length, outcomes: [...current.outcomes, ...outcomes] };
      } catch (error) {
        return stop(error);
      }
      setRun(current);
    }
    if (current.steps === null) {
      const { steps, skipped } = placementSteps(current.classes, current.outcomes, current.owner);
      current = { ...current, steps, placements: skipped };
    }
    while (current.placedSteps < current.steps!.length) {
      const step = current.steps![current.placedSteps]!;
      try {
        const placed = await place(institution.id, step, current.owner, current.createdGroups[step.key]);
        const created = !step.groupId && placed.groupId ? { [step.key]: placed.groupId } : {};
        current = {
          ...current,
          placedSteps: current.placedSteps + 1,
          placements: [...current.placements, ...placed.outcomes],
          createdGroups: { ...current.createdGroups, ...created },
        };
      } catch (error) {
        return stop(error);
      }
      setRun(current);
    }
    setRun({ ...current, running: false });
    const groups = current.classes.length > 0 ? [areaKey(institution.id, 'groups')] : [];
    await Promise.all([...invalidate, ...groups].map((queryKey) => queryClient.invalidateQueries({ queryKey })));
  };

  const start = (rows: PlannedRow[], mapping: ColumnMapping) =>
    void go({
      mode,
      mapping,
      rows,
      sendable: sendingOrder(rows),
      sent: 0,
      outcomes: [],
      classes,
      owner: owners.length > 0 ? owner : null,
      steps: null,
      placedSteps: 0,
      placements: [],
      createdGroups: {},
      error: null,
      running: true,
    });

  const columns = loaded ? Math.max(...loaded.table.rows.map((row) => row.length)) : 0;
  const columnOptions = loaded
    ? Array.from({ length: columns }, (_, index) => ({ value: String(index), label: columnLabel(loaded.table, loaded.hasHeader, index) }))
    : [];
  const totalSteps = run ? run.sendable.length + (run.steps?.length ?? run.classes.length) : 0;
  const percent = run && totalSteps > 0 ? Math.round(((run.sent + run.placedSteps) / totalSteps) * 100) : 100;
  const placing = run !== null && run.sent === run.sendable.length && run.steps !== null && run.steps.length > 0;
  const title = `Import ${kind.many}`;
  const idLabel = kind.fields.find((field) => field.key === 'external_id')?.label ?? 'ID';
  const updatedFields = kind.fields.some((field) => field.key === 'personal_email') ? 'the name and personal e-mail' : 'the name';

  return (
    <Modal opened={opened} onClose={close} title={title} size="xl" closeOnClickOutside={!run?.running}>
      {run ? (
        <Stack>
          <Text size="sm" aria-live="polite">
            {run.running
              ? placing
                ? `Placing students in their classes: ${run.placedSteps} of ${run.steps!.length} groups.`
                : `Importing: ${run.sent} of ${run.sendable.length} sent.`
              : run.sent < run.sendable.length
                ? `Stopped after ${run.sent} of ${run.sendable.length}.`
                : run.steps && run.placedSteps < run.steps.length
                  ? `Stopped placing students in their classes after ${run.placedSteps} of ${run.steps.length} groups.`
                  : `Done: ${outcomesInWords(kind, run.outcomes, run.rows.length - run.sendable.length, run.mode)}.${run.classes.length > 0 ? placementsInWords(run) : ''}`}
          </Text>
          <Progress value={percent} size="lg" aria-label="Import progress" aria-valuetext={`${percent}%`} />
          {!run.running && rejectedRows(run).length > 0 ? (
            <ScrollArea.Autosize mah={200}>
              <Table aria-label="Rejected rows" fz="sm">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Line</Table.Th>
                    <Table.Th>Why it was not imported</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {rejectedRows(run).map(([line, reason]) => (
                    <Table.Tr key={line}>
                      <Table.Td>{line}</Table.Td>
                      <Table.Td>{reason}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </ScrollArea.Autosize>
          ) : null}
          {run.error ? (
            <Alert color="red" role="alert" title="The import stopped">
              {run.error} {run.sent < run.sendable.length ? STOPPED_IN_ROWS : STOPPED_IN_CLASSES}
            </Alert>
          ) : null}
          <ModalActions onCancel={close} cancelLabel={run.running ? 'Cancel' : 'Close'}>
            {run.error ? (
              <Button onClick={() => void go(run)} disabled={run.running}>
                Resume
              </Button>
            ) : null}
            <Button
              variant="default"
              disabled={run.running}
              onClick={() => download(`${kind.many.replace(' ', '-')}-import-result.csv`, resultFile(kind, run))}
            >
              Download the result
            </Button>
          </ModalActions>
        </Stack>
      ) : loaded ? (
        <Stack>
          <Text size="sm">
            <b>{loaded.name}</b>: {planned.length.toLocaleString()} {planned.length === 1 ? 'row' : 'rows'}
            {loaded.table.delimiter ? `, separated by “${loaded.table.delimiter === '\t' ? 'tab' : loaded.table.delimiter}”.` : ', from its first sheet.'}
          </Text>
          <Checkbox
            label="The first line is a header (column titles)"
            checked={loaded.hasHeader}
            onChange={(event) => setLoaded({ ...loaded, hasHeader: event.currentTarget.checked })}
          />
          {kind.updatable ? (
            <Radio.Group label={`Rows whose ${idLabel} is already someone's`} value={mode} onChange={(value) => setMode(value === 'update' ? 'update' : 'add')}>
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
                onChange={(value) => setLoaded({ ...loaded, mapping: { ...loaded.mapping, [field.key]: value === null ? null : Number(value) } })}
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
                  onChange={(event) => setAcceptedWarning(event.currentTarget.checked ? nameWarning : null)}
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
                  onChange={setOwner}
                  searchable
                />
              ) : null}
              {newGroups.length > 0 && owners.length === 0 ? (
                <Alert color="yellow" role="alert">
                  No active faculty member can own the new groups ({names(newGroups)}), so their students are imported without those classes. Add a faculty
                  member first to have them created.
                </Alert>
              ) : null}
            </Stack>
          ) : null}
          <PreviewTable kind={kind} rows={planned} fields={shownFields(kind, loaded.mapping)} />
          {!blocking ? <UpdatesTable rows={planned} idLabel={idLabel} /> : null}
          {!blocking ? <ProblemsTable rows={planned} /> : null}
          <ModalActions onCancel={close}>
            <Button variant="default" onClick={() => setLoaded(null)}>
              Another file
            </Button>
            <Button disabled={unsettled} onClick={() => start(planned, loaded.mapping)}>
              Import {counts.ready} {counts.ready === 1 ? kind.one : kind.many}
            </Button>
          </ModalActions>
        </Stack>
      ) : (
        <Stack>
          <Paper
            withBorder
            p="xl"
            radius="md"
            style={{ borderStyle: 'dashed', background: dragging ? 'var(--mantine-color-blue-light)' : undefined, textAlign: 'center' }}
            onDragOver={(event) => {
              event.preventDefault();
              setDragging(true);
            }}
            onDragLeave={() => setDragging(false)}
            onDrop={drop}
          >
            <Stack align="center" gap="xs">
              <Text>Drop a CSV or Excel (.xlsx) file here</Text>
              <Text size="sm" c="dimmed">
                CSV comma- or semicolon-separated, as spreadsheets save it, or an Excel workbook's first sheet; a header line is recognised.
              </Text>
              <Group>
                <Button onClick={() => input.current?.click()} loading={reading}>
                  Choose a file
                </Button>
              </Group>
              <input
                ref={input}
                type="file"
                accept={ACCEPTED_FILES}
                aria-label="CSV or Excel file"
                hidden
                onChange={(event) => {
                  void readFile(event.currentTarget.files?.[0]);
                  event.currentTarget.value = '';
                }}
              />
            </Stack>
          </Paper>
          {reading ? (
            <Text size="sm" aria-live="polite">
              Reading the file and the people already here…
            </Text>
          ) : null}
          {fileError ? (
            <Alert color="red" role="alert">
              {fileError}
            </Alert>
          ) : null}
          <Text size="sm" c="dimmed">
            Columns: {columnsInWords(kind)}. Nothing is written until you have seen the preview.
          </Text>
        </Stack>
      )}
    </Modal>
  );
}
