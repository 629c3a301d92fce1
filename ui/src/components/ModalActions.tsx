import { Button, Group } from '@mantine/core';
import type { ReactNode } from 'react';

/** The foot of a dialog: Cancel, then the one action it is there for. */
export function ModalActions({ onCancel, children }: { onCancel(): void; children: ReactNode }) {
  return (
    <Group justify="flex-end">
      <Button variant="default" onClick={onCancel}>
        Cancel
      </Button>
      {children}
    </Group>
  );
}
