import { Button, Group, Modal, Stack, type ModalProps } from '@mantine/core';
import type { FormEvent, ReactNode } from 'react';
import { ModalActions } from './ModalActions';

interface FormModalProps {
  opened: boolean;
  title: string;
  /** The form's accessible name, when it should differ from the title. */
  formLabel?: string;
  size?: ModalProps['size'];
  submitLabel: string;
  loading: boolean;
  disabled?: boolean;
  onSubmit(): void;
  onClose(): void;
  /** Replaces the form, above a Done button, once it has done its work: a secret shown once, an import's results. */
  outcome?: ReactNode;
  children: ReactNode;
}

/** A modal holding one form, with Cancel and the submit button at the bottom; Enter in any field submits. */
export function FormModal({ opened, title, formLabel = title, size, submitLabel, loading, disabled, onSubmit, onClose, outcome, children }: FormModalProps) {
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit();
  };
  return (
    <Modal opened={opened} onClose={onClose} title={title} size={size}>
      {outcome ? (
        <Stack>
          {outcome}
          <Group justify="flex-end">
            <Button onClick={onClose}>Done</Button>
          </Group>
        </Stack>
      ) : (
        <form onSubmit={submit} aria-label={formLabel}>
          <Stack>
            {children}
            <ModalActions onCancel={onClose}>
              <Button type="submit" loading={loading} disabled={disabled}>
                {submitLabel}
              </Button>
            </ModalActions>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
