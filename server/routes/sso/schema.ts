import { LAUNCH_TTL_DEFAULT_SECONDS, LAUNCH_TTL_MAX_SECONDS } from '../../commands/learner/sso.js';
import { timestamp } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';
import { learnerUserSchema } from '../learner/schema.js';

const learnerApp = z.enum(['learning', 'code']).openapi({ description: 'The app the link opens.' });

export const mintLaunchBody = z
  .strictObject({
    email: z
      .email()
      .max(320)
      .openapi({ description: 'Login email of a student or faculty member of this institution.', example: 'ada.lovelace@riverside-high.campusbridge.local' }),
    app: learnerApp,
    redirect: z.string().min(1).max(200).optional().openapi({
      description:
        'Where the app should go after sign-in, handed back by the exchange as given. `exam:<exam_id>` must name an exam of this institution (else `422 validation_error`).',
      example: 'exam:exm_5Qw8kT2xLm9Pz3Rb7Vn1Hc4Y',
    }),
    ttl_seconds: z
      .number()
      .int()
      .min(1)
      .max(LAUNCH_TTL_MAX_SECONDS)
      .default(LAUNCH_TTL_DEFAULT_SECONDS)
      .openapi({ description: `Lifetime of the token, 1 to ${LAUNCH_TTL_MAX_SECONDS} seconds.`, example: LAUNCH_TTL_DEFAULT_SECONDS }),
  })
  .openapi('LaunchTokenCreate');

export const launchSchema = z
  .object({
    launch_url: z.string().openapi({
      description: 'Send the browser here: `<portal>/launch?token=<token>`. Single use; the token is not shown again.',
      example: 'http://127.0.0.1:4780/launch?token=Qm4xT8kP2wL9zR7bV1nH5cY3jD6fG0sA8eU2iO4p',
    }),
    expires_at: timestamp,
  })
  .openapi('LaunchToken');

export const exchangeBody = z
  .strictObject({
    token: z.string().min(1).max(500).openapi({ description: 'The `token` of the launch URL.', example: 'Qm4xT8kP2wL9zR7bV1nH5cY3jD6fG0sA8eU2iO4p' }),
    device: z
      .strictObject({
        id: z
          .string()
          .min(1)
          .max(200)
          .openapi({ description: 'A stable identifier the app keeps on this device.', example: '5b0e3c1a-7f2d-4c8e-9a61-2d4f8b7e0c13' }),
        name: z.string().max(200).nullable().optional().openapi({ description: "Shown in the license's device list.", example: "Ada's Chromebook" }),
      })
      .optional()
      .openapi({
        description:
          "The device signing in. It takes a seat on the user's license (at most 3 active, across apps; a 4th device is `409 conflict`), or refreshes its own. Without `device` no seat is taken.",
      }),
  })
  .openapi('LaunchExchange');

export const sessionSchema = z
  .object({
    session_token: z.string().openapi({
      description: '`cb_sess_` and 32 characters. Send it as `Authorization: Bearer <token>` to /app/* operations; it lasts 8 hours.',
      example: 'cb_sess_Zp3kR8mW1xQ7Lb4Tn9Vc2Hy6Jd5Fg0Sa',
    }),
    expires_at: timestamp,
    user: learnerUserSchema,
    app: learnerApp,
    redirect: z.string().nullable().openapi({ description: 'As given when the token was minted.', example: 'exam:exm_5Qw8kT2xLm9Pz3Rb7Vn1Hc4Y' }),
    grading_exam_id: z.string().nullable().openapi({
      description:
        "Set when an instructor's LTI launch opened the session: it may grade this exam's submissions (`/app/grading*`) and call nothing else but `/app/me`. Null otherwise.",
      example: null,
    }),
  })
  .openapi('LearnerSession');
