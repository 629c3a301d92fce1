import { Button, Group, Skeleton, Stack, Text, TextInput } from '@mantine/core';
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { Link } from 'react-router';
import { QueryError } from '../../components';

/** Building blocks the data areas' list and detail pages share. */

export function Mono({ children }: { children: ReactNode }) {
  return (
    <Text span size="sm" ff="monospace">
      {children}
    </Text>
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
export function SearchBox({
  label,
  placeholder,
  description,
  value,
  onSearch,
  width = 320,
}: {
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
    // The box gives way on a narrow screen (a phone's 390 px) instead of pushing the page sideways.
    <form onSubmit={submit} role="search" aria-label={label} style={{ maxWidth: '100%' }}>
      <Group gap={6} align="flex-end" wrap="nowrap">
        <TextInput
          label={label}
          description={description}
          placeholder={placeholder}
          value={text}
          onChange={(event) => setText(event.currentTarget.value)}
          style={{ flex: `0 1 ${width}px`, minWidth: 0 }}
          maxLength={320}
        />
        <Button type="submit" variant="light" style={{ flexShrink: 0 }}>
          Search
        </Button>
      </Group>
    </form>
  );
}
