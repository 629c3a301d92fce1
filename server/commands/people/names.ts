import { Op } from 'sequelize';
import type { Tenant } from '../../db/tenant.js';

/** What the portal can show by name instead of by id, each known by its id's prefix (server/ids.ts). */
export const KIND_OF_PREFIX = {
  stu: 'student',
  fac: 'faculty',
  grp: 'group',
  exm: 'exam',
  sub: 'submission',
  lic: 'license',
  seat: 'seat',
  whe: 'endpoint',
  dlv: 'delivery',
  evt: 'event',
  key: 'key',
  acc: 'account',
  inv: 'invitation',
} as const;

export type NamedKind = (typeof KIND_OF_PREFIX)[keyof typeof KIND_OF_PREFIX];
export const NAMED_KINDS = Object.values(KIND_OF_PREFIX) as NamedKind[];

/** What a table shows in place of an id. */
export interface NamedRef {
  id: string;
  kind: NamedKind;
  name: string;
  /** A second line where one helps: a person's login e-mail, an endpoint's description, a submission's exam. */
  detail: string | null;
}

export function kindOfId(id: string): NamedKind | undefined {
  const prefix = id.slice(0, id.indexOf('_'));
  return Object.hasOwn(KIND_OF_PREFIX, prefix) ? KIND_OF_PREFIX[prefix as keyof typeof KIND_OF_PREFIX] : undefined;
}

const among = (ids: readonly string[]) => ({ [Op.in]: ids });
/** A query only when there is something to ask for. */
const whenAny = async <T>(ids: readonly string[], read: () => Promise<T[]>): Promise<T[]> => (ids.length > 0 ? read() : []);

/**
 * The names of a page's ids, a fixed number of queries whatever the page holds: at most one per
 * kind, in two rounds (a submission's or a license's name is made of its student's, exam's or
 * holder's). Ids of this institution only (the tenant scope), of the kinds `kinds` allows; the rest
 * are left out, as are ids of records that are gone. See docs/decisions/names-not-ids.md.
 */
export async function namesOf(tenant: Tenant, ids: readonly string[], kinds: ReadonlySet<NamedKind>): Promise<NamedRef[]> {
  const wanted = new Map<NamedKind, string[]>();
  for (const id of new Set(ids)) {
    const kind = kindOfId(id);
    if (kind && kinds.has(kind)) wanted.set(kind, [...(wanted.get(kind) ?? []), id]);
  }
  const of = (kind: NamedKind) => wanted.get(kind) ?? [];

  const [submissions, licenses, members] = await Promise.all([
    whenAny(of('submission'), () => tenant.submissions.findAllPlain({ attributes: ['id', 'student_id', 'exam_id'], where: { id: among(of('submission')) } })),
    whenAny(of('license'), () => tenant.licenses.findAllPlain({ attributes: ['id', 'user_id', 'type'], where: { id: among(of('license')) } })),
    whenAny(of('account'), () => tenant.memberships.findAllPlain({ attributes: ['account_id', 'role'], where: { account_id: among(of('account')) } })),
  ]);
  const personIds = [...of('student'), ...of('faculty'), ...submissions.map((row) => row.student_id), ...licenses.map((row) => row.user_id)];
  const examIds = [...of('exam'), ...submissions.map((row) => row.exam_id)];
  const memberIds = members.map((row) => row.account_id);

  const [people, groups, exams, seats, endpoints, deliveries, events, keys, accounts, invitations] = await Promise.all([
    whenAny(personIds, () => tenant.people.findAllPlain({ attributes: ['id', 'role', 'full_name', 'login_email'], where: { id: among(personIds) } })),
    whenAny(of('group'), () => tenant.groups.findAllPlain({ attributes: ['id', 'name'], where: { id: among(of('group')) } })),
    whenAny(examIds, () => tenant.exams.findAllPlain({ attributes: ['id', 'title'], where: { id: among(examIds) } })),
    whenAny(of('seat'), () => tenant.deviceSeats.findAllPlain({ attributes: ['id', 'device_name', 'app'], where: { id: among(of('seat')) } })),
    whenAny(of('endpoint'), () => tenant.webhookEndpoints.findAllPlain({ attributes: ['id', 'url', 'description'], where: { id: among(of('endpoint')) } })),
    whenAny(of('delivery'), () => tenant.webhookDeliveries.findAllPlain({ attributes: ['id', 'event_type'], where: { id: among(of('delivery')) } })),
    whenAny(of('event'), () => tenant.events.findAllPlain({ attributes: ['id', 'type'], where: { id: among(of('event')) } })),
    whenAny(of('key'), () => tenant.apiKeys.findAllPlain({ attributes: ['id', 'name', 'prefix'], where: { id: among(of('key')) } })),
    // Accounts are not institution data: only those with a membership here are named.
    whenAny(memberIds, () => tenant.appliance.portalAccounts.findAll({ attributes: ['id', 'email'], where: { id: among(memberIds) } })),
    whenAny(of('invitation'), () => tenant.invitations.findAllPlain({ attributes: ['id', 'email', 'role'], where: { id: among(of('invitation')) } })),
  ]);

  // A person named only if their own kind may be read: a submission's student, a license's holder too.
  const personName = new Map(people.filter((person) => kinds.has(person.role)).map((person) => [person.id, person]));
  const examTitle = new Map(exams.map((exam) => [exam.id, exam.title]));
  const memberRole = new Map(members.map((member) => [member.account_id, member.role]));
  const named = (kind: NamedKind, id: string, name: string, detail: string | null = null): NamedRef => ({ id, kind, name, detail });

  return [
    ...[...of('student'), ...of('faculty')].flatMap((id) => {
      const person = personName.get(id);
      return person ? [named(person.role, id, person.full_name, person.login_email)] : [];
    }),
    ...groups.map((group) => named('group', group.id, group.name)),
    ...of('exam').flatMap((id) => (examTitle.has(id) ? [named('exam', id, examTitle.get(id)!)] : [])),
    ...submissions.map((row) => {
      const title = kinds.has('exam') ? examTitle.get(row.exam_id) : undefined;
      const student = personName.get(row.student_id)?.full_name;
      return named('submission', row.id, student ?? title ?? 'Submission', student ? (title ?? null) : null);
    }),
    ...licenses.map((row) => named('license', row.id, personName.get(row.user_id)?.full_name ?? 'License', `${row.type} license`)),
    ...seats.map((seat) => named('seat', seat.id, seat.device_name ?? 'Unnamed device', `${seat.app} app`)),
    ...endpoints.map((endpoint) => named('endpoint', endpoint.id, endpoint.url, endpoint.description || null)),
    ...deliveries.map((delivery) => named('delivery', delivery.id, delivery.event_type)),
    ...events.map((event) => named('event', event.id, event.type)),
    ...keys.map((key) => named('key', key.id, key.name, `${key.prefix}…`)),
    ...accounts.map((account) => named('account', account.id, account.email, memberRole.get(account.id) ?? null)),
    ...invitations.map((invitation) => named('invitation', invitation.id, invitation.email, `invited as ${invitation.role}`)),
  ];
}
