import { Button, Group } from '@mantine/core';
import type { ReactNode } from 'react';

/** The foot of a dialog: Cancel, then the one action it is there for. */
export function ModalActions({ onCancel, cancelLabel = 'Cancel', children }: { onCancel(): void; cancelLabel?: string; children: ReactNode }) {
  return (
    <Group justify="flex-end">
      <Button variant="default" onClick={onCancel}>
        {cancelLabel}
      </Button>
      {children}
    </Group>
  );
}
