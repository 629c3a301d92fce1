import { Button, Group } from '@mantine/core';
import type { ReactNode } from 'react';

/** The filters above a list, and "Clear filters" once any of them is set. */
export function FilterBar({ filtered, onClear, label, children }: { filtered: boolean; onClear(): void; label?: string; children: ReactNode }) {
  return (
    <Group mb="md" align="flex-end" wrap="wrap" gap="sm" role={label ? 'search' : undefined} aria-label={label}>
      {children}
      {filtered ? (
        <Button variant="subtle" onClick={onClear}>
          Clear filters
        </Button>
      ) : null}
    </Group>
  );
}
