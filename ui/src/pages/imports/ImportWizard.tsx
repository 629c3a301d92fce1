import { Modal } from '@mantine/core';
import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useState } from 'react';
import { useInstitution } from '../../session';
import { areaKey } from '../shared/areas';
import { placementSteps, place } from './classes';
import { FileStep } from './FileStep';
import type { ImportKind, ImportMode, PlannedRow } from './importKind';
import type { Run } from './importRun';
import { preferNameParts } from './names';
import { nextChunk, sendingOrder } from './plan';
import { PreviewStep } from './PreviewStep';
import { readImportFile } from './readFile';
import { RunStep } from './RunStep';
import { guessMapping, looksLikeHeader, type ColumnMapping } from './table';
import { useImportPlan, type Loaded } from './useImportPlan';

/**
 * Importing people from a CSV or Excel (.xlsx) file (docs/install.md#importing-people-from-a-spreadsheet): choose or drop the file, check which
 * column is which, see each line's fate (created, updated, unchanged) or problem before anything is written, then import in chunks
 * (`nextChunk`) with a progress bar, and place the students in their classes. An error stops the import where it is, and Resume goes on from that
 * chunk; the result file lists every line, with what became of it or why not.
 */
export function ImportWizard({ kind, opened, onClose, invalidate }: { kind: ImportKind; opened: boolean; onClose(): void; invalidate: QueryKey[] }) {
  const institution = useInstitution();
  const queryClient = useQueryClient();
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [reading, setReading] = useState(false);
  const [fileError, setFileError] = useState<string | null>(null);
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

  const plan = useImportPlan(kind, loaded, mode, owner, acceptedWarning);
  const { classes, owners } = plan;

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

  const title = `Import ${kind.many}`;

  return (
    <Modal opened={opened} onClose={close} title={title} size="xl" closeOnClickOutside={!run?.running}>
      {run ? (
        <RunStep kind={kind} run={run} onResume={() => void go(run)} onClose={close} />
      ) : loaded ? (
        <PreviewStep
          kind={kind}
          loaded={loaded}
          plan={plan}
          mode={mode}
          owner={owner}
          acceptedWarning={acceptedWarning}
          onLoaded={setLoaded}
          onMode={setMode}
          onOwner={setOwner}
          onAcceptWarning={setAcceptedWarning}
          onAnotherFile={() => setLoaded(null)}
          onStart={start}
          onClose={close}
        />
      ) : (
        <FileStep kind={kind} reading={reading} fileError={fileError} onFile={(file) => void readFile(file)} />
      )}
    </Modal>
  );
}
