import { NAMED_KINDS, type NamedKind } from '../../commands/people/names.js';
import { OPERATOR_NAMED_KINDS, type OperatorNamedKind } from '../../commands/operator/names.js';
import { z } from '../../validation/zod.js';

/** Ids per call: two pages of the longest list. */
export const MAX_NAMED_IDS = 400;

/** `?ids=a,b,c`: at most MAX_NAMED_IDS ids of the kinds `what` lists. */
const idsQuery = (what: string, example: string) =>
  z.strictObject({
    ids: z
      .string()
      .min(1)
      .transform((value) => value.split(',').filter(Boolean))
      .pipe(z.array(z.string().min(1).max(40)).max(MAX_NAMED_IDS))
      .optional()
      .openapi({ description: `Comma-separated ids, at most ${MAX_NAMED_IDS}, of any of: ${what}; none answers no names.`, example }),
  });

/** The institution whose names are asked. */
export const institutionParams = z.strictObject({ id: z.string().min(1).max(40) });

/** The ids of an institution's page to name. */
export const institutionNamesQuery = idsQuery(
  'students, faculty, groups, exams, submissions, licenses, device seats, webhook endpoints, deliveries, events, API keys, team accounts and invitations',
  'stu_a,grp_b,whe_c',
);

/** The ids of an operator's page to name. */
export const operatorNamesQuery = idsQuery('institutions, portal accounts, admin invitations, coupon batches and curricula', 'inst_a,acc_b');

/** One id with the name it stands for. */
const namedRef = z.object({
  id: z.string(),
  kind: z.enum(NAMED_KINDS as [NamedKind, ...NamedKind[]]),
  name: z.string().openapi({
    description: "A person's or group's name, an exam's title, an endpoint's URL, an event's type, a key's name, an account's e-mail…",
  }),
  detail: z.string().nullable().openapi({
    description: "A second line where one helps: a person's login e-mail, a submission's exam, an endpoint's description, a key's prefix; else null.",
  }),
});

/** The names found in an institution; ids not found or not the caller's to read are left out. */
export const namesResponse = z.object({ items: z.array(namedRef) });

/** The names found across the appliance, for the operator. */
export const operatorNamesResponse = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      kind: z.enum(OPERATOR_NAMED_KINDS as [OperatorNamedKind, ...OperatorNamedKind[]]),
      name: z.string().openapi({ description: "An institution's, coupon batch's or curriculum's name; an account's or invitation's e-mail." }),
      detail: z.string().nullable().openapi({ description: 'The institution of a coupon batch or an invitation; else null.' }),
    }),
  ),
});
