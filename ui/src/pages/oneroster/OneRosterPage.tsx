import { Alert, Skeleton, Stack, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { call, portal } from '../../api/portal';
import { PageHeader, QueryError } from '../../components';
import { useInstitution } from '../../session';
import { ConnectionForm } from './ConnectionForm';
import { CsvImportCard } from './CsvImportCard';
import { GradebookPosts } from './GradebookPosts';
import { onerosterKey } from './oneroster';
import { RunsTable } from './RunsTable';
import { isCsvImport } from './runWords';
import { SyncCard } from './SyncCard';

export function OneRosterPage() {
  const institution = useInstitution();
  const state = useQuery({
    queryKey: onerosterKey(institution.id),
    queryFn: () => call(portal.GET('/institutions/{id}/oneroster', { params: { path: { id: institution.id } } })),
  });
  const heldScheduled = state.data?.runs[0]?.outcome === 'held_back' ? state.data.runs[0] : null;
  return (
    <>
      <PageHeader
        title="OneRoster"
        description="Students, faculty and groups from your SIS's OneRoster rostering service: users become students and faculty, classes groups with their teacher, enrollments their members; people the SIS removes are suspended."
      />
      {state.error ? (
        <QueryError error={state.error} />
      ) : !state.data ? (
        <Skeleton height={320} aria-busy="true" aria-label="Loading" />
      ) : (
        <Stack gap="xl" maw={1100}>
          {heldScheduled ? (
            <Alert color="orange" title={isCsvImport(heldScheduled) ? 'The last CSV import was held back' : 'The last sync was held back'} role="alert">
              {heldScheduled.reason}{' '}
              {isCsvImport(heldScheduled)
                ? 'Import the zip again below and apply it anyway if it is right.'
                : 'Run a dry run to see it, then Sync now and apply it if it is right.'}
            </Alert>
          ) : null}
          {/* Re-mounted when the saved connection changes, so the form starts from what the server holds. */}
          <ConnectionForm key={JSON.stringify(state.data.connection)} connection={state.data.connection} />
          {/* A connection a CSV import made has no REST API to sync through (the server refuses it). */}
          {state.data.connection?.source === 'rest' ? (
            <section aria-labelledby="oneroster-sync">
              <Title order={3} mb="sm" id="oneroster-sync">
                Sync
              </Title>
              <SyncCard />
            </section>
          ) : null}
          <section aria-labelledby="oneroster-csv">
            <Title order={3} mb="sm" id="oneroster-csv">
              Import a OneRoster CSV zip
            </Title>
            <CsvImportCard />
          </section>
          <div>
            <Title order={3} mb="sm">
              Runs
            </Title>
            <RunsTable runs={state.data.runs} />
          </div>
          {state.data.connection?.source === 'rest' ? (
            <section aria-labelledby="oneroster-gradebook">
              <Title order={3} mb="sm" id="oneroster-gradebook">
                Grades sent to the SIS
              </Title>
              <GradebookPosts />
            </section>
          ) : null}
        </Stack>
      )}
    </>
  );
}
