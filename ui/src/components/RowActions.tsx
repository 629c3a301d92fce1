import { Button, Menu } from '@mantine/core';
import type { ReactNode } from 'react';

/** A table row's "Actions" menu; the button names its row so screen readers can tell them apart. */
export function RowActions({ name, children }: { name: string; children: ReactNode }) {
  return (
    <Menu position="bottom-end">
      <Menu.Target>
        <Button size="compact-xs" variant="subtle" aria-label={`Actions for ${name}`}>
          Actions
        </Button>
      </Menu.Target>
      <Menu.Dropdown>{children}</Menu.Dropdown>
    </Menu>
  );
}
