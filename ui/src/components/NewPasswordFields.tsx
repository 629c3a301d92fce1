import { PasswordInput } from '@mantine/core';
import type { MIN_PASSWORD_LENGTH } from '../../../server/commands/passwords';

/** The server's rule (type-checked against its constant): at least 10 characters. */
export const MIN_PASSWORD: typeof MIN_PASSWORD_LENGTH = 10;

/** Why a new password and its repetition cannot be sent, or null when they can. */
export function newPasswordProblem(password: string, confirm: string): string | null {
  if (password.length < MIN_PASSWORD) return `Use at least ${MIN_PASSWORD} characters.`;
  if (password !== confirm) return 'The two passwords differ.';
  return null;
}

/** A new password typed twice: setup, reset, changing one's own. */
export function NewPasswordFields(props: {
  password: string;
  confirm: string;
  onPassword(value: string): void;
  onConfirm(value: string): void;
  label?: string;
  autoFocus?: boolean;
}) {
  const label = props.label ?? 'New password';
  return (
    <>
      <PasswordInput
        label={label}
        description={`At least ${MIN_PASSWORD} characters.`}
        autoComplete="new-password"
        required
        value={props.password}
        onChange={(event) => props.onPassword(event.currentTarget.value)}
        autoFocus={props.autoFocus}
      />
      <PasswordInput
        label={label === 'Password' ? 'Repeat the password' : `${label} again`}
        autoComplete="new-password"
        required
        value={props.confirm}
        onChange={(event) => props.onConfirm(event.currentTarget.value)}
      />
    </>
  );
}
