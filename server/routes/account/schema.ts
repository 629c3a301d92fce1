import { newPasswordSchema } from '../../commands/accounts/accounts.js';
import { z } from '../../validation/zod.js';

/** The signed-in account, its memberships and the CSRF token: never the password hash, never the session token. */
export const sessionSchema = z.object({
  account: z.object({ id: z.string(), email: z.string(), is_operator: z.boolean() }),
  memberships: z.array(
    z.object({
      institution: z.object({ id: z.string(), name: z.string(), status: z.enum(['pending', 'approved', 'suspended']) }),
      role: z.enum(['admin', 'developer']),
      /** The institution's sandbox (docs/decisions/sandbox.md), null until first opened: the portal's sandbox view uses this id. */
      sandbox_id: z.string().nullable(),
    }),
  ),
  csrf_token: z.string(),
});

/** Whether the first-run wizard is still to do. */
export const setupStatusSchema = z.object({ needed: z.boolean() });

/** Sign-in: the email is matched whatever its case. */
export const loginBody = z.strictObject({
  email: z
    .string()
    .trim()
    .min(1)
    .max(320)
    .transform((email) => email.toLowerCase()),
  password: z.string().min(1).max(200),
});

/** A change of one's own password: the current one is asked. */
export const changePasswordBody = z.strictObject({
  current_password: z.string().min(1).max(200),
  new_password: newPasswordSchema,
});

/** "Forgot password": the email to mail the link to. */
export const passwordResetRequestBody = z.strictObject({ email: z.string().trim().min(1).max(320) });

/** The mailed link's token and the new password. */
export const passwordResetCompleteBody = z.strictObject({ token: z.string().min(1).max(100), password: newPasswordSchema });

/** A changed password: how many other sessions it ended. */
export const passwordChangedSchema = z.object({
  /** The account's other sessions, signed out by the change; this one stays signed in. */
  ended_sessions: z.number().int(),
});

/** Whether "forgot password" works on this appliance. */
export const passwordResetStateSchema = z.object({
  /** false: no mail server, so "forgot password" cannot send its link; the operator resets passwords instead. */
  available: z.boolean(),
});

/** The same answer for every email, known or not. */
export const passwordResetRequestedSchema = z.object({ requested: z.literal(true) });

/** The account whose password a link set. */
export const passwordResetDoneSchema = z.object({ email: z.string() });
