import { Op } from 'sequelize';
import type { Tenant } from '../db/tenant.js';

export type NamedKind = 'student' | 'faculty' | 'group';

/** What a table shows in place of an id: a person's or a group's name. */
export interface NamedRef {
  id: string;
  kind: NamedKind;
  name: string;
  /** A person's login e-mail; null for a group. */
  detail: string | null;
}

const KIND_OF_PREFIX: Record<string, NamedKind> = { stu: 'student', fac: 'faculty', grp: 'group' };

/**
 * The names of a page's people and groups, two queries whatever the page holds (docs/decisions.md#names-not-ids).
 * Ids of this institution only (the tenant scope), of the kinds `kinds` allows; others are left out.
 */
export async function namesOf(tenant: Tenant, ids: readonly string[], kinds: ReadonlySet<NamedKind>): Promise<NamedRef[]> {
  const wanted = [...new Set(ids)].filter((id) => kinds.has(KIND_OF_PREFIX[id.split('_')[0] ?? ''] as NamedKind));
  const personIds = wanted.filter((id) => !id.startsWith('grp_'));
  const groupIds = wanted.filter((id) => id.startsWith('grp_'));
  const [people, groups] = await Promise.all([
    personIds.length > 0 ? tenant.people.findAllPlain({ attributes: ['id', 'role', 'full_name', 'login_email'], where: { id: { [Op.in]: personIds } } }) : [],
    groupIds.length > 0 ? tenant.groups.findAll({ attributes: ['id', 'name'], where: { id: { [Op.in]: groupIds } } }) : [],
  ]);
  return [
    ...people
      .filter((person) => kinds.has(person.role))
      .map((person) => ({ id: person.id, kind: person.role, name: person.full_name, detail: person.login_email })),
    ...groups.map((group) => ({ id: group.id, kind: 'group' as const, name: group.name, detail: null })),
  ];
}
