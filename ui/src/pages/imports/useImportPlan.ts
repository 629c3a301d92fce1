import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useInstitution } from '../../session';
import { CLASS, planClasses } from './classes';
import type { ImportKind, ImportMode } from './importKind';
import { namePartWarning } from './names';
import { countPlan, emailChecks, hasNameParts, mappingProblem, planRows } from './plan';
import { compareEmails, indexContext, type ImportContext } from './roster';
import type { ColumnMapping, ParsedTable } from './table';

/** A file read for an import, with the mapping of its columns. */
export interface Loaded {
  name: string;
  table: ParsedTable;
  hasHeader: boolean;
  mapping: ColumnMapping;
  /** The appliance's people and groups, read with the file: the preview is planned against them. */
  context: ImportContext;
  /** When they were read; the personal e-mails are compared again for each file. */
  readAt: number;
}

const NO_COMPARISONS: ReadonlyMap<string, boolean> = new Map();

/**
 * The preview of a loaded file: every row planned against the appliance's people and groups (its personal e-mails compared by the
 * appliance first), the classes it places students in, and whether anything still stands in the way of importing it.
 */
export function useImportPlan(kind: ImportKind, loaded: Loaded | null, mode: ImportMode, owner: string | null, acceptedWarning: string | null) {
  const institution = useInstitution();
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
  return { planned, counts, blocking, nameWarning, comparisons, classes, newGroups, owners, ownerNeeded, placedClasses, placedCount, unsettled };
}

export type ImportPlan = ReturnType<typeof useImportPlan>;
