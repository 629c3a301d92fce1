import { Button, Modal, Stack, type MantineColor } from '@mantine/core';
import type { ReactNode } from 'react';
import { ModalActions } from './ModalActions';

/**
 * The question asked before anything destructive or hard to undo. The confirm button is not
 * focused first: focus starts on the close button, so a stray Enter dismisses the question
 * instead of answering it.
 */
export function ConfirmModal({
  opened,
  title,
  children,
  confirmLabel,
  color,
  loading,
  onConfirm,
  onClose,
}: {
  opened: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  /** Red for a destructive action; the theme's colour when omitted. */
  color?: MantineColor;
  loading: boolean;
  onConfirm(): void;
  onClose(): void;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title={title}>
      <Stack>
        {children}
        <ModalActions onCancel={onClose}>
          <Button color={color} loading={loading} onClick={onConfirm}>
            {confirmLabel}
          </Button>
        </ModalActions>
      </Stack>
    </Modal>
  );
}
