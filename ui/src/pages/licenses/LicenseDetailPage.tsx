import { Button, SegmentedControl, Text, Textarea, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useState } from 'react';
import { useParams } from 'react-router';
import { call, portal } from '../../api/portal';
import {
  ConfirmModal,
  DataTable,
  Fact,
  Facts,
  formatDate,
  formatRelative,
  FormModal,
  PageHeader,
  Section,
  StatusBadge,
  useApiMutation,
  WholeNumberInput,
} from '../../components';
import { useInstitution } from '../../session';
import { PersonLink } from '../people/people';
import { useNames } from '../shared/names';
import { areaKey } from '../shared/areas';
import { BackLink, DetailState, Mono } from '../shared/common';
import type { License, Seat } from './licenses';

const MAX_DAYS = 3650;

/** The forms' labels by API field: shown on the inputs, and in a refusal's words. */
const EXTEND_LABELS = { days: 'Days to add', expires_at: 'New expiry date' } as const;
const REVOKE_LABELS = { reason: 'Reason' } as const;

function ExtendModal({ license, onClose }: { license: License; onClose(): void }) {
  const institution = useInstitution();
  const [mode, setMode] = useState<'days' | 'date'>('days');
  const [days, setDays] = useState<number>(365);
  const [date, setDate] = useState('');
  const extend = useApiMutation({
    mutationFn: () =>
      call(
        portal.POST('/institutions/{institution}/licenses/{id}/extend', {
          params: { path: { institution: institution.id, id: license.id } },
          // End of the chosen day, local time: the license holds through it.
          body: mode === 'days' ? { days } : { expires_at: new Date(`${date}T23:59:59`).toISOString() },
        }),
      ),
    invalidate: [areaKey(institution.id, 'licenses')],
    success: (row) => `License now expires ${formatDate(row.expires_at)}.`,
    onSuccess: onClose,
    labels: EXTEND_LABELS,
  });
  return (
    <FormModal
      opened
      title="Extend license"
      submitLabel="Extend"
      loading={extend.isPending}
      disabled={mode === 'date' && !date}
      onSubmit={() => extend.mutate()}
      onClose={onClose}
    >
      <SegmentedControl
        value={mode}
        onChange={(value) => setMode(value as 'days' | 'date')}
        data={[
          { value: 'days', label: 'Add days' },
          { value: 'date', label: 'Set a date' },
        ]}
        aria-label="How to extend"
      />
      {mode === 'days' ? (
        <WholeNumberInput
          label={EXTEND_LABELS.days}
          error={extend.fieldErrors.days}
          description={
            license.status === 'expired' ? 'Counted from now: the license has expired.' : `Added to the current expiry, ${formatDate(license.expires_at)}.`
          }
          min={1}
          max={MAX_DAYS}
          required
          value={days}
          onChange={setDays}
          fallback={1}
          data-autofocus
        />
      ) : (
        <TextInput
          label={EXTEND_LABELS.expires_at}
          error={extend.fieldErrors.expires_at}
          description="The license holds through the end of that day; it must be in the future."
          type="date"
          required
          value={date}
          onChange={(event) => setDate(event.currentTarget.value)}
        />
      )}
    </FormModal>
  );
}

function RevokeModal({ license, onClose }: { license: License; onClose(): void }) {
  const institution = useInstitution();
  const [reason, setReason] = useState('');
  const revoke = useApiMutation({
    mutationFn: () =>
      call(
        portal.POST('/institutions/{institution}/licenses/{id}/revoke', {
          params: { path: { institution: institution.id, id: license.id } },
          body: reason.trim() ? { reason: reason.trim() } : {},
        }),
      ),
    invalidate: [areaKey(institution.id, 'licenses')],
    success: 'License revoked.',
    onSuccess: onClose,
    labels: REVOKE_LABELS,
  });
  return (
    <FormModal
      opened
      title="Revoke this license?"
      formLabel="Revoke license"
      submitLabel="Revoke license"
      loading={revoke.isPending}
      onSubmit={() => revoke.mutate()}
      onClose={onClose}
    >
      <Text size="sm">The holder loses access to the apps at once and every device seat is freed. A revoked license cannot be extended or restored.</Text>
      <Textarea
        label={REVOKE_LABELS.reason}
        description="Optional: kept for your records; never sent to integrations."
        error={revoke.fieldErrors.reason}
        maxLength={500}
        autosize
        minRows={2}
        value={reason}
        onChange={(event) => setReason(event.currentTarget.value)}
        data-autofocus
      />
    </FormModal>
  );
}

export function LicenseDetailPage() {
  const institution = useInstitution();
  const { licenseId = '' } = useParams();
  const [extending, extender] = useDisclosure(false);
  const [revoking, revoker] = useDisclosure(false);
  const [freeing, setFreeing] = useState<Seat | null>(null);
  const path = { institution: institution.id, id: licenseId };

  const license = useQuery({
    queryKey: [...areaKey(institution.id, 'licenses'), 'one', licenseId],
    queryFn: () => call(portal.GET('/institutions/{institution}/licenses/{id}', { params: { path } })),
  });
  const holderName = useNames(institution.id, [license.data?.user_id]).get(license.data?.user_id ?? '')?.name;
  const seats = useQuery({
    queryKey: [...areaKey(institution.id, 'licenses'), 'devices', licenseId],
    queryFn: () => call(portal.GET('/institutions/{institution}/licenses/{id}/devices', { params: { path } })),
  });
  const freeSeat = useApiMutation({
    mutationFn: (seat: Seat) =>
      call(portal.POST('/institutions/{institution}/licenses/{id}/devices/{seatId}/revoke', { params: { path: { ...path, seatId: seat.seat_id } } })),
    invalidate: [[...areaKey(institution.id, 'licenses'), 'devices', licenseId]],
    success: (seat) => `${seat.device_name ?? 'Device'} signed out; its seat is free.`,
    onSuccess: () => setFreeing(null),
  });

  const seatColumns: ColumnDef<Seat>[] = [
    { header: 'Device', id: 'device', cell: ({ row }) => row.original.device_name ?? <Mono>{row.original.seat_id}</Mono> },
    { header: 'App', accessorKey: 'app' },
    { header: 'Status', id: 'status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
    { header: 'Activated', id: 'activated', cell: ({ row }) => formatDate(row.original.activated_at) },
    {
      header: 'Last seen',
      id: 'seen',
      cell: ({ row }) => <span title={formatDate(row.original.last_seen_at)}>{formatRelative(row.original.last_seen_at)}</span>,
    },
    {
      header: '',
      id: 'actions',
      cell: ({ row }) =>
        row.original.status === 'active' ? (
          <Button
            size="xs"
            variant="subtle"
            color="red"
            onClick={() => setFreeing(row.original)}
            aria-label={`Free seat of ${row.original.device_name ?? row.original.seat_id}`}
          >
            Free seat
          </Button>
        ) : null,
    },
  ];

  return (
    <DetailState isPending={license.isPending} error={license.error}>
      {() => {
        const row = license.data!;
        const revoked = row.status === 'revoked';
        return (
          <>
            <PageHeader
              title="License"
              description={<Mono>{row.id}</Mono>}
              actions={
                <>
                  <BackLink to=".." label="All licenses" />
                  <Button variant="default" onClick={extender.open} disabled={revoked}>
                    Extend
                  </Button>
                  <Button variant="light" color="red" onClick={revoker.open} disabled={revoked}>
                    Revoke
                  </Button>
                </>
              }
            />
            <Facts>
              <Fact label="Holder">
                <PersonLink institutionId={institution.id} id={row.user_id} label={holderName} />
              </Fact>
              <Fact label="Status">
                <StatusBadge status={row.status} />
              </Fact>
              <Fact label="Type">{row.type}</Fact>
              <Fact label="Starts">{formatDate(row.starts_at)}</Fact>
              <Fact label="Expires">{formatDate(row.expires_at)}</Fact>
              <Fact label="Revoked">{row.revoked_at ? formatDate(row.revoked_at) : null}</Fact>
            </Facts>
            <Section title="Devices">
              <Text size="sm" c="dimmed">
                At most 3 devices are signed in at once, across apps. Free a seat to let another device in.
              </Text>
              <DataTable
                label="Devices"
                columns={seatColumns}
                data={seats.data?.items}
                isLoading={seats.isPending}
                error={seats.error}
                getRowId={(seat) => seat.seat_id}
                empty={{ title: 'No device has signed in with this license' }}
              />
            </Section>
            {extending ? <ExtendModal license={row} onClose={extender.close} /> : null}
            {revoking ? <RevokeModal license={row} onClose={revoker.close} /> : null}
            <ConfirmModal
              opened={freeing !== null}
              title="Free this seat?"
              confirmLabel="Free seat"
              color="red"
              loading={freeSeat.isPending}
              onConfirm={() => freeing && freeSeat.mutate(freeing)}
              onClose={() => setFreeing(null)}
            >
              <Text size="sm">{freeing?.device_name ?? 'This device'} is signed out and must sign in again to take a seat.</Text>
            </ConfirmModal>
          </>
        );
      }}
    </DetailState>
  );
}
