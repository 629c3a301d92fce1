import { Anchor, Button, Group, Modal, SimpleGrid, Skeleton, Stack, Text, TextInput } from '@mantine/core';
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { Link } from 'react-router';
import { QueryError } from '../../components';
import { personPath } from './data';

/** A labelled value on a detail page. */
export function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack gap={2}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <div>{children ?? '—'}</div>
    </Stack>
  );
}

export function Facts({ children }: { children: ReactNode }) {
  return (
    <SimpleGrid cols={{ base: 2, md: 4 }} spacing="lg" verticalSpacing="md" mb="xl">
      {children}
    </SimpleGrid>
  );
}

export function Mono({ children }: { children: ReactNode }) {
  return (
    <Text span size="sm" ff="monospace">
      {children}
    </Text>
  );
}

/** A student or faculty id linked to their page. */
export function PersonLink({ institutionId, id, label }: { institutionId: string; id: string; label?: string }) {
  return (
    <Anchor component={Link} to={personPath(institutionId, id)} size="sm" ff={label ? undefined : 'monospace'} onClick={(event) => event.stopPropagation()}>
      {label ?? id}
    </Anchor>
  );
}

/** A detail page's load states: skeleton, the error (404 included) said plainly, then the page. */
export function DetailState({ isPending, error, children }: { isPending: boolean; error: unknown; children: () => ReactNode }) {
  if (error) return <QueryError error={error} />;
  if (isPending) {
    return (
      <Stack gap="sm" aria-busy="true" aria-label="Loading">
        <Skeleton height={36} width="40%" />
        <Skeleton height={80} />
        <Skeleton height={200} />
      </Stack>
    );
  }
  return <>{children()}</>;
}

export function BackLink({ to, label }: { to: string; label: string }) {
  return (
    <Button variant="default" component={Link} to={to} relative="path">
      {label}
    </Button>
  );
}

/**
 * A search box that applies on Enter (or the button), not on every key: each search is one
 * request, and the API's filters are exact matches that a half-typed value would never hit.
 */
export function SearchBox({ label, placeholder, description, value, onSearch, width = 320 }: {
  label: string;
  placeholder?: string;
  description?: string;
  value: string;
  onSearch(value: string): void;
  width?: number;
}) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSearch(text.trim());
  };
  return (
    <form onSubmit={submit} role="search" aria-label={label}>
      <Group gap={6} align="flex-end" wrap="nowrap">
        <TextInput label={label} description={description} placeholder={placeholder} value={text} onChange={(event) => setText(event.currentTarget.value)} w={width} maxLength={320} />
        <Button type="submit" variant="light">
          Search
        </Button>
      </Group>
    </form>
  );
}

/** A confirmation for anything destructive or hard to undo. */
export function ConfirmModal({
  opened,
  title,
  children,
  confirmLabel,
  color = 'red',
  loading,
  onConfirm,
  onClose,
}: {
  opened: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  color?: string;
  loading: boolean;
  onConfirm(): void;
  onClose(): void;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title={title}>
      <Stack>
        {children}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button color={color} loading={loading} onClick={onConfirm} data-autofocus>
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** Modal form buttons: Cancel and a submit button (Enter in any field submits). */
export function FormButtons({ submitLabel, loading, disabled, onCancel }: { submitLabel: string; loading: boolean; disabled?: boolean; onCancel(): void }) {
  return (
    <Group justify="flex-end">
      <Button variant="default" onClick={onCancel}>
        Cancel
      </Button>
      <Button type="submit" loading={loading} disabled={disabled}>
        {submitLabel}
      </Button>
    </Group>
  );
}
