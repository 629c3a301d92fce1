import { Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { z } from 'zod';
import type { KIND_OF_PREFIX as SERVER_KINDS } from '../../../../server/commands/people/names';
import type { OPERATOR_KIND_OF_PREFIX as SERVER_OPERATOR_KINDS } from '../../../../server/commands/operator/names';
import type { namesResponse, operatorNamesResponse } from '../../../../server/routes/names/schema';
import { call, portal } from '../../api/portal';
import { areaKey } from './areas';

/** What `GET …/names` answers for an id (type-only import of the server's schema). */
export type NamedRef = z.input<typeof namesResponse>['items'][number];
export type OperatorNamedRef = z.input<typeof operatorNamesResponse>['items'][number];

export type NamedKind = NamedRef['kind'] | OperatorNamedRef['kind'];

/**
 * What an id stands for, by its prefix, for ids that have no name to show (another institution's
 * data in the operator's log, a record since deleted). The server's table lives with database
 * code, so it is repeated here; its type is the server's own, so a change there fails the type check.
 */
const KIND_OF_PREFIX: typeof SERVER_KINDS & typeof SERVER_OPERATOR_KINDS = {
  stu: 'student',
  fac: 'faculty',
  grp: 'group',
  exm: 'exam',
  sub: 'submission',
  lic: 'license',
  seat: 'seat',
  whe: 'endpoint',
  dlv: 'delivery',
  evt: 'event',
  key: 'key',
  acc: 'account',
  inv: 'invitation',
  inst: 'institution',
  cpb: 'coupon_batch',
  cur: 'curriculum',
};

/** Each kind in words, as a sentence starts it ("Student Ada Lovelace"). */
export const KIND_WORDS: Record<NamedKind, string> = {
  student: 'Student',
  faculty: 'Faculty member',
  group: 'Group',
  exam: 'Exam',
  submission: 'Submission by',
  license: 'License of',
  seat: 'Device',
  endpoint: 'Endpoint',
  delivery: 'Delivery of',
  event: 'Event',
  key: 'Key',
  account: 'Account',
  invitation: 'Invitation of',
  institution: 'Institution',
  coupon_batch: 'Coupon batch',
  curriculum: 'Curriculum',
};

/** The kind an id's prefix says it is, if it is one the portal knows. */
export function kindOfId(id: string): NamedKind | undefined {
  const prefix = id.slice(0, id.indexOf('_'));
  return Object.hasOwn(KIND_OF_PREFIX, prefix) ? KIND_OF_PREFIX[prefix as keyof typeof KIND_OF_PREFIX] : undefined;
}

/** The ids of a page, each once, in one stable string: the query's key and its `ids`. */
const idList = (ids: ReadonlyArray<string | null | undefined>) => [...new Set(ids.filter((id): id is string => Boolean(id)))].sort().join(',');

/**
 * The names of the ids a page shows (people, groups, exams, endpoints, keys…), in one request for
 * the whole page, not one per row (docs/decisions/names-not-ids.md). Kept with the students'
 * queries, so a change to people (the names that change most) refreshes them.
 */
export function useNames(institutionId: string, ids: ReadonlyArray<string | null | undefined>): Map<string, NamedRef> {
  const wanted = idList(ids);
  const names = useQuery({
    queryKey: [...areaKey(institutionId, 'students'), 'names', wanted],
    queryFn: () => call(portal.GET('/institutions/{id}/names', { params: { path: { id: institutionId }, query: { ids: wanted } } })),
    enabled: wanted.length > 0,
    staleTime: 60_000,
  });
  return useMemo(() => new Map((names.data?.items ?? []).map((item) => [item.id, item])), [names.data]);
}

/** `useNames` for the operator's pages: institutions, accounts, invitations, coupon batches, curricula. */
export function useOperatorNames(ids: ReadonlyArray<string | null | undefined>): Map<string, OperatorNamedRef> {
  const wanted = idList(ids);
  const names = useQuery({
    queryKey: ['operator', 'names', wanted],
    queryFn: () => call(portal.GET('/operator/names', { params: { query: { ids: wanted } } })),
    enabled: wanted.length > 0,
    staleTime: 60_000,
  });
  return useMemo(() => new Map((names.data?.items ?? []).map((item) => [item.id, item])), [names.data]);
}

/** A name in place of an id, the id on hover; the id itself while names load, or when there is no name to show. */
export function NamedId({ id, name, size = 'sm' }: { id: string; name: string | undefined; size?: 'xs' | 'sm' }) {
  return (
    <Text span size={size} ff={name ? undefined : 'monospace'} title={id} style={{ overflowWrap: 'anywhere' }}>
      {name ?? id}
    </Text>
  );
}
