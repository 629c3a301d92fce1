import { Select, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { call, portal } from '../../api/portal';
import { formatDate, formatRelative, FormModal, SecretOnce, useApiMutation } from '../../components';
import { useInstitution } from '../../session';
import { keysQueryKey, ROLL_OVERLAP, type ApiKey, type RolledApiKey } from './keys';

/** A key's expiry, lifecycle and last use in the keys page (docs/decisions/api-key-lifecycle.md). */

/** `<input type="date">` gives a day; a key with that expiry works through the whole day, local time: to its last millisecond. */
export const expiryOfDay = (day: string): string | null => (day ? new Date(`${day}T23:59:59.999`).toISOString() : null);

const today = () => {
  const now = new Date();
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
};

/** The optional expiry day of a new key. */
export function ExpiryInput({ value, onChange, error }: { value: string; onChange(day: string): void; error?: string }) {
  return (
    <TextInput
      label="Expires (optional)"
      description="The key works through this day, your time, and stops at its end. Leave empty for a key that does not expire."
      type="date"
      min={today()}
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
      error={error}
      w={260}
    />
  );
}

/** A key by what the list shows of it, or its id when it is not in the list. */
function keyLabel(keyId: string, keys: readonly ApiKey[]): string {
  const found = keys.find((key) => key.key_id === keyId);
  return found ? `${found.prefix}…${found.last4}` : keyId;
}

/** When a key ends: never, its expiry, or (rolled) the end of its overlap and the key that replaced it. */
export function KeyEnd({ apiKey, keys }: { apiKey: ApiKey; keys: readonly ApiKey[] }) {
  const link = apiKey.replaced_by
    ? `replaced by ${keyLabel(apiKey.replaced_by, keys)}`
    : apiKey.replaces
      ? `replaces ${keyLabel(apiKey.replaces, keys)}`
      : null;
  let end: string;
  if (apiKey.status === 'revoked') end = `revoked ${formatDate(apiKey.revoked_at)}`;
  else if (!apiKey.expires_at) end = 'never';
  else end = `${new Date(apiKey.expires_at).getTime() <= Date.now() ? 'ended' : 'ends'} ${formatDate(apiKey.expires_at)}`;
  return (
    <Stack gap={0}>
      <Text size="sm" title={apiKey.expires_at ? formatRelative(apiKey.expires_at) : undefined}>
        {end}
      </Text>
      {link ? (
        <Text size="xs" c="dimmed">
          {link}
        </Text>
      ) : null}
    </Stack>
  );
}

/** The last use: when (to the minute) and from which address. */
export function LastUsed({ apiKey }: { apiKey: ApiKey }) {
  if (!apiKey.last_used_at) return <Text size="sm">never</Text>;
  return (
    <Stack gap={0}>
      <Text size="sm" title={formatDate(apiKey.last_used_at)}>
        {formatRelative(apiKey.last_used_at)}
      </Text>
      {apiKey.last_used_ip ? (
        <Text size="xs" c="dimmed">
          from {apiKey.last_used_ip}
        </Text>
      ) : null}
    </Stack>
  );
}

const OVERLAPS = [
  { value: '0', label: 'None: the old key stops at once' },
  { value: '1', label: '1 hour' },
  { value: '24', label: '1 day' },
  { value: '72', label: '3 days' },
  { value: String(ROLL_OVERLAP.max), label: '7 days' },
];

/** Roll a key: choose the overlap, then the new key is shown once and the old one's end is said. */
export function RollKeyModal({ apiKey, onClose }: { apiKey: ApiKey | null; onClose(): void }) {
  const institution = useInstitution();
  const [overlap, setOverlap] = useState(String(ROLL_OVERLAP.default));
  const [rolled, setRolled] = useState<RolledApiKey | null>(null);
  const roll = useApiMutation({
    // The modal only opens with a key, so the id is there when this runs.
    mutationFn: () =>
      call(
        portal.POST('/institutions/{id}/keys/{keyId}/roll', {
          params: { path: { id: institution.id, keyId: apiKey?.key_id ?? '' } },
          body: { overlap_hours: Number(overlap) },
        }),
      ),
    invalidate: [keysQueryKey(institution.id)],
    onSuccess: setRolled,
    labels: { overlap_hours: 'Overlap' },
  });
  const close = () => {
    setOverlap(String(ROLL_OVERLAP.default));
    setRolled(null);
    roll.reset();
    onClose();
  };
  return (
    <FormModal
      opened={apiKey !== null}
      title={rolled ? 'Your new API key' : `Roll key “${apiKey?.name ?? ''}”`}
      size="lg"
      submitLabel="Roll key"
      loading={roll.isPending}
      onSubmit={() => roll.mutate()}
      onClose={close}
      outcome={
        rolled ? (
          <>
            <SecretOnce label={`Key "${rolled.name}" (replaces ${rolled.old_key.prefix}…${rolled.old_key.last4})`} value={rolled.key} />
            <Text size="sm">
              Same scopes and limit: {rolled.scopes.join(', ')} · {rolled.rate_limit_per_min} requests per minute
              {rolled.expires_at ? ` · expires ${formatDate(rolled.expires_at)}` : ''}.
            </Text>
            <Text size="sm" fw={500}>
              The old key {rolled.old_key.prefix}…{rolled.old_key.last4}{' '}
              {rolled.old_key.status === 'active' ? `keeps working until ${formatDate(rolled.old_key.expires_at)}` : 'has stopped working'}.
            </Text>
          </>
        ) : null
      }
    >
      <Text size="sm">
        Rolling makes a new key with the same name, scopes, rate limit and lifetime. Put the new key in your LMS; the old key keeps working for the overlap you
        choose, then stops. A key is rolled once.
      </Text>
      <Select
        label="Overlap"
        description="How long both keys work (up to 7 days)."
        data={OVERLAPS}
        value={overlap}
        onChange={(value) => setOverlap(value ?? String(ROLL_OVERLAP.default))}
        allowDeselect={false}
        error={roll.fieldErrors.overlap_hours}
        w={320}
        comboboxProps={{ withinPortal: true }}
      />
    </FormModal>
  );
}
