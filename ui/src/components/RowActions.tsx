import { Box, Button, Menu } from '@mantine/core';
import type { KeyboardEvent, MouseEvent, ReactNode } from 'react';

// The menu's clicks and Enter presses are its own: in a row that opens on click (the webhook
// endpoints), using the menu must not also open the row. React bubbles them from the menu's
// portal to the row all the same, so they stop here.
const keepClick = (event: MouseEvent) => event.stopPropagation();
const keepEnter = (event: KeyboardEvent) => {
  if (event.key === 'Enter') event.stopPropagation();
};

/** A table row's "Actions" menu; the button names its row so screen readers can tell them apart. */
export function RowActions({ name, children }: { name: string; children: ReactNode }) {
  return (
    <Box onClick={keepClick} onKeyDown={keepEnter}>
      <Menu position="bottom-end">
        <Menu.Target>
          <Button size="compact-xs" variant="subtle" aria-label={`Actions for ${name}`}>
            Actions
          </Button>
        </Menu.Target>
        <Menu.Dropdown>{children}</Menu.Dropdown>
      </Menu>
    </Box>
  );
}
