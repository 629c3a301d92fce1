import { PasswordInput } from '@mantine/core';
import type { MIN_PASSWORD_LENGTH } from '../../../server/commands/accounts/passwords';

/** The server's rule (type-checked against its constant): at least 10 characters. */
export const MIN_PASSWORD: typeof MIN_PASSWORD_LENGTH = 10;

/** The two fields' labels, from the first one's: "New password" and "New password again"; "Password" and "Repeat the password". */
export function newPasswordLabels(label = 'New password') {
  return { password: label, confirm: label === 'Password' ? 'Repeat the password' : `${label} again` };
}

/** What keeps a new password from being sent, by field, in words with the field's label. */
export interface NewPasswordProblems {
  password?: string;
  confirm?: string;
}

/** Why a new password and its repetition cannot be sent, by field (none when they can), in words with each field's label. */
export function newPasswordProblems(password: string, confirm: string, label?: string): NewPasswordProblems {
  const labels = newPasswordLabels(label);
  if (password.length < MIN_PASSWORD) return { password: `${labels.password}: use at least ${MIN_PASSWORD} characters` };
  if (password !== confirm) return { confirm: `${labels.confirm}: the two passwords differ` };
  return {};
}

export const hasProblems = (problems: NewPasswordProblems) => Boolean(problems.password ?? problems.confirm);

/** A new password typed twice: setup, reset, changing one's own; `errors` shows under each field. */
export function NewPasswordFields(props: {
  password: string;
  confirm: string;
  onPassword(value: string): void;
  onConfirm(value: string): void;
  label?: string;
  autoFocus?: boolean;
  errors?: NewPasswordProblems;
}) {
  const labels = newPasswordLabels(props.label);
  return (
    <>
      <PasswordInput
        label={labels.password}
        description={`At least ${MIN_PASSWORD} characters.`}
        autoComplete="new-password"
        required
        value={props.password}
        onChange={(event) => props.onPassword(event.currentTarget.value)}
        autoFocus={props.autoFocus}
        error={props.errors?.password}
      />
      <PasswordInput
        label={labels.confirm}
        autoComplete="new-password"
        required
        value={props.confirm}
        onChange={(event) => props.onConfirm(event.currentTarget.value)}
        error={props.errors?.confirm}
      />
    </>
  );
}
