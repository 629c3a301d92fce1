import type { OneRosterRun, SyncResult } from './oneroster';

/** A run's or a result's outcome: its badge colour and its words. */
export const OUTCOME_COLORS: Record<OneRosterRun['outcome'], string> = {
  applied: 'green',
  dry_run: 'blue',
  held_back: 'orange',
  failed: 'red',
  running: 'gray',
};
export const OUTCOME_WORDS: Record<OneRosterRun['outcome'], string> = {
  applied: 'Applied',
  dry_run: 'Dry run',
  held_back: 'Held back',
  failed: 'Failed',
  running: 'Running',
};
/** What started a run. */
export const TRIGGER_WORDS: Record<OneRosterRun['trigger'], string> = {
  portal: 'portal',
  cli: 'cli',
  scheduled: 'scheduled',
  portal_csv: 'CSV import (portal)',
  cli_csv: 'CSV import (CLI)',
};
/** Whether a run was a CSV import (from the portal or the CLI) rather than a sync. */
export const isCsvImport = (run: OneRosterRun) => run.trigger === 'portal_csv' || run.trigger === 'cli_csv';

/** What a run did (or would do) in one line: created, updated, suspended, memberships. */
export const countsLine = (result: SyncResult) =>
  [
    `${result.created.students} students, ${result.created.faculty} faculty, ${result.created.groups} groups created`,
    `${result.updated.students + result.updated.faculty + result.updated.groups} updated`,
    `${result.suspended.students} students, ${result.suspended.faculty} faculty suspended, ${result.suspended.groups} groups retired`,
    `${result.memberships.added} memberships added, ${result.memberships.removed} removed`,
  ].join(' · ');
