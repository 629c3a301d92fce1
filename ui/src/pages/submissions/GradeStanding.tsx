import { Badge, Group, List, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import type { gradeStandingSchema } from '../../../../server/routes/grade-standing/schema';
import { call, portal } from '../../api/portal';
import { formatDate, Section } from '../../components';
import { useInstitution } from '../../session';
import { areaKey } from '../shared/areas';

/** Where a grade stands in the LMS and the SIS (type-only import of the server's schema). */
export type GradeStandingItem = z.input<typeof gradeStandingSchema>;
type Destination = GradeStandingItem['destinations'][number];

const STATE_COLORS: Record<Destination['state'], string> = { delivered: 'green', queued: 'blue', failed: 'red' };
const STATE_WORDS: Record<Destination['state'], string> = { delivered: 'Delivered', queued: 'Queued', failed: 'Failed' };
/** A queued grade goes out within seconds to minutes; the open page follows it. */
const REFRESH_MS = 10_000;

export const gradeStandingKey = (institutionId: string, query: { submission_id: string } | { exam_id: string }) =>
  [...areaKey(institutionId, 'submissions'), 'grade-standing', query] as const;

function DestinationLine({ entry }: { entry: Destination }) {
  const place = entry.destination === 'lms' ? `LMS (${entry.name})` : `SIS (${entry.name})`;
  return (
    <List.Item>
      <Group gap="xs" wrap="nowrap" align="baseline">
        <Badge size="sm" variant="light" color={STATE_COLORS[entry.state]}>
          {STATE_WORDS[entry.state]}
        </Badge>
        <Text size="sm">
          {place}: has {entry.sent_score ?? 'nothing yet'}
          {entry.sent_at ? ` since ${formatDate(entry.sent_at)}` : ''}
          {entry.state !== 'delivered' ? `; ${entry.latest_score ?? '—'} ${entry.state === 'failed' ? 'gave up' : 'waiting to go'}` : ''}
          {entry.error && entry.state !== 'delivered' ? ` (${entry.error})` : ''}
          {entry.next_attempt_at ? `, next try ${formatDate(entry.next_attempt_at)}` : ''}
        </Text>
      </Group>
    </List.Item>
  );
}

/** "LMS has 7, SIS has 7, here 8: queued", and each destination's last score and state, on the submission's page. */
export function GradeStanding({ submissionId }: { submissionId: string }) {
  const institution = useInstitution();
  const standing = useQuery({
    queryKey: gradeStandingKey(institution.id, { submission_id: submissionId }),
    queryFn: () => call(portal.GET('/institutions/{id}/grade-standing/submissions/{submissionId}', { params: { path: { id: institution.id, submissionId } } })),
    refetchInterval: (query) => (query.state.data?.destinations.some((entry) => entry.state === 'queued') ? REFRESH_MS : false),
  });
  const item = standing.data;
  // A grade that goes nowhere (no LMS link, no SIS write-back), a caller without the role, or a failed
  // read leave the page as it was: this is a side note.
  if (!item || item.destinations.length === 0) return null;
  return (
    <Section title="In the LMS and the SIS">
      <Text size="sm">{item.summary}</Text>
      <List size="sm" spacing={4}>
        {item.destinations.map((entry) => (
          <DestinationLine key={`${entry.destination} ${entry.target}`} entry={entry} />
        ))}
      </List>
    </Section>
  );
}

/** Each submission's "LMS has …, SIS has …, here …: …" for an exam's scores table, by submission id. */
export function useExamGradeStandings(examId: string): Map<string, GradeStandingItem> {
  const institution = useInstitution();
  const standing = useQuery({
    queryKey: gradeStandingKey(institution.id, { exam_id: examId }),
    queryFn: () => call(portal.GET('/institutions/{id}/grade-standing/exams/{examId}', { params: { path: { id: institution.id, examId } } })),
    enabled: examId !== '',
    refetchInterval: (query) => (query.state.data?.items.some((item) => item.destinations.some((entry) => entry.state === 'queued')) ? REFRESH_MS : false),
  });
  return new Map((standing.data?.items ?? []).map((item) => [item.submission_id, item]));
}
