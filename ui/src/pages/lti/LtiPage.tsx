import { Skeleton, Stack, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { call, portal } from '../../api/portal';
import { PageHeader, QueryError } from '../../components';
import { useInstitution } from '../../session';
import { DynamicRegistration } from './DynamicRegistration';
import { ltiKey } from './lti';
import { LinksTable } from './LinksTable';
import { PlatformForm } from './PlatformForm';
import { PlatformsTable } from './PlatformsTable';
import { ScorePosts } from './ScorePosts';
import { HttpsNote, ToolSide } from './ToolSide';

/** Settings → LTI: the tool's side to paste into the LMS, the registered platforms, and the grades sent back. */
export function LtiPage() {
  const institution = useInstitution();
  const overview = useQuery({
    queryKey: ltiKey(institution.id),
    queryFn: () => call(portal.GET('/institutions/{id}/lti', { params: { path: { id: institution.id } } })),
  });
  return (
    <>
      <PageHeader
        title="LTI 1.3"
        description="Open exams from your LMS: students land in the exam, teachers pick exams for a course (deep linking), and grades go back to the LMS gradebook."
      />
      {overview.error ? (
        <QueryError error={overview.error} />
      ) : !overview.data ? (
        <Skeleton height={320} aria-busy="true" aria-label="Loading" />
      ) : (
        <Stack gap="xl" maw={1100}>
          <div>
            <Title order={3} mb="sm">
              Connect an LMS
            </Title>
            <Stack gap="lg">
              <HttpsNote tool={overview.data.tool} />
              <DynamicRegistration />
              <ToolSide tool={overview.data.tool} />
            </Stack>
          </div>
          <div>
            <Title order={3} mb="sm">
              Platforms
            </Title>
            <Stack gap="lg">
              <PlatformsTable platforms={overview.data.platforms} />
              <PlatformForm />
            </Stack>
          </div>
          <div>
            <Title order={3} mb="sm">
              Links and class lists
            </Title>
            <LinksTable links={overview.data.links} />
          </div>
          <div>
            <Title order={3} mb="sm">
              Grades sent to the LMS
            </Title>
            <ScorePosts />
          </div>
        </Stack>
      )}
    </>
  );
}
