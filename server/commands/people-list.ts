import { Op, Sequelize, type WhereOptions } from 'sequelize';
import { searchPatterns } from '../db/search-text.js';
import { compareInOrder, sortedOrder, type OrderItem } from '../db/sort.js';
import { cutPage, type Page, type PageRequest, type Tenant } from '../db/tenant.js';
import type { PersonRecord, PersonRole, PersonRow, PersonStatus } from '../models/person.js';
import type { ListSort } from '../validation/sort.js';
import { normalizeEmail } from '../validation/people.js';
import { personalEmailIndex } from './people.js';

/** The columns a people list sorts by; `external_id` is `student_id` or `faculty_id` on the wire. */
export type PeopleSortColumn = 'created_at' | 'full_name' | 'external_id';

/** People's paths accept the internal id or the generated login email. */
export interface PeopleFilter extends PageRequest {
  email?: string;
  status?: PersonStatus;
  /** The institution's own identifier (`student_id` on the wire). */
  external_id?: string;
  /** Part of the name, id or login e-mail, whatever its case and accents (contract §16). */
  q?: string;
  /** Students only: members of this group. */
  group_id?: string;
  sort?: ListSort<PeopleSortColumn>;
}

/** A people list's `sort` as the wire names it (`student_id`, `faculty_id`), by the column it sorts. */
export function peopleSort(sort: ListSort<'created_at' | 'full_name' | 'student_id' | 'faculty_id'> | undefined): ListSort<PeopleSortColumn> | undefined {
  if (!sort) return undefined;
  return { direction: sort.direction, column: sort.column === 'student_id' || sort.column === 'faculty_id' ? 'external_id' : sort.column };
}

const CREATION_ORDER: OrderItem[] = [
  ['created_at', 'ASC'],
  ['id', 'ASC'],
];

const SORT_COLUMNS: Record<PeopleSortColumn, string> = { created_at: 'created_at', full_name: 'full_name', external_id: 'external_id' };

/**
 * The people an `email` filter matches (with the other filters). Looked up twice by the email
 * alone, not by one OR beside the other filters: each lookup is then planned on its own index
 * (login_email, the blind index), and the few ids found are read by primary key.
 */
async function matchingEmail(tenant: Tenant, where: WhereOptions[], email: string): Promise<PersonRow[]> {
  const matches = await Promise.all([
    tenant.people.findAll({ attributes: ['id'], where: { login_email: normalizeEmail(email) } }),
    tenant.people.findAll({ attributes: ['id'], where: { personal_email_index: personalEmailIndex(tenant, email) } }),
  ]);
  const ids = [...new Set(matches.flat().map((person) => person.id))];
  return ids.length > 0 ? tenant.people.findAll({ where: { [Op.and]: [...where, { id: { [Op.in]: ids } }] } }) : [];
}

/**
 * The conditions `q` adds: every pattern on the stored search text (server/db/search-text.ts). On
 * PostgreSQL its trigram index serves them; on SQLite the FTS5 trigram table is asked first for
 * the people whose text holds every part it can look up (an FTS5 phrase of the trigram tokenizer
 * is a substring, found from the index alone), and those are read by primary key
 * (docs/decisions.md#people-search).
 */
function searchConditions(tenant: Tenant, query: string): WhereOptions[] {
  const { like, indexed } = searchPatterns(query);
  const conditions: WhereOptions[] = like.map((pattern) => ({ search_text: { [Op.like]: pattern } }));
  if (!tenant.onPostgres && indexed.length > 0) {
    // Folded text holds letters, digits and spaces only: nothing to escape inside the quotes.
    const phrases = indexed.map((core) => `"${core}"`).join(' AND ');
    conditions.push({
      id: {
        [Op.in]: Sequelize.literal(
          `(SELECT keys.person_id FROM people_search JOIN people_search_keys AS keys ON keys.search_rowid = people_search.rowid WHERE people_search MATCH ${tenant.sqlString(phrases)})`,
        ),
      },
    });
  }
  return conditions;
}

/**
 * A page of `q`'s matches: their ids in the page's order in one read (the search index looked up
 * once, the matches read by primary key and sorted), the total counted from them, then the page's
 * people. The cost follows the matches, never the institution.
 */
async function searchPage(tenant: Tenant, where: WhereOptions[], filter: PeopleFilter, order: OrderItem[]): Promise<Page<PersonRecord>> {
  const people = tenant.people.byKey();
  const matches = await people.findAllPlain({ attributes: ['id'], where: { [Op.and]: where }, order });
  const offset = (filter.page - 1) * filter.limit;
  const ids = matches.slice(offset, offset + filter.limit).map((match) => match.id);
  const rows = ids.length > 0 ? await people.findAllPlain({ where: { id: { [Op.in]: ids } } }) : [];
  const byId = new Map(rows.map((row) => [row.id, row]));
  return {
    items: ids.flatMap((id) => byId.get(id) ?? []),
    page: filter.page,
    limit: filter.limit,
    total: matches.length,
    totalPages: Math.ceil(matches.length / filter.limit),
  };
}

const MEMBER_ORDER: OrderItem[] = [
  ['student_created_at', 'ASC'],
  ['student_id', 'ASC'],
];

/** The people of `ids`, through their memberships of the group: planned on the memberships' key, then each person by primary key. */
async function membersById(tenant: Tenant, groupId: string, ids: readonly string[]): Promise<Map<string, PersonRecord>> {
  if (ids.length === 0) return new Map();
  const rows = (await tenant.groupMembers.findAll({
    attributes: [],
    where: { group_id: groupId, student_id: { [Op.in]: [...ids] } },
    include: [{ association: 'student', required: true }],
    raw: true,
  })) as unknown as Array<Record<string, unknown>>;
  return new Map(
    rows.map((row) => {
      const fields: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(row)) fields[key.slice('student.'.length)] = value;
      const person = tenant.people.plainRow(fields);
      return [person.id, person];
    }),
  );
}

/**
 * A page of a group's members that pass the other filters, in creation order either way. The
 * memberships carry their students' creation time, indexed in the list's order, so the page is
 * read from `(institution_id, group_id, student_created_at, student_id)` and the total counted on
 * the group's range of it; a `status` (or `student_id`) filter is checked on each member by
 * primary key as the walk goes. The cost follows the page and the group, never the institution.
 */
async function groupPage(tenant: Tenant, groupId: string, where: WhereOptions[], filter: PeopleFilter): Promise<Page<PersonRecord>> {
  const narrowed = where.length > 1; // more than the role
  const include = narrowed
    ? [{ association: 'student', required: true, attributes: [], where: { [Op.and]: [...where, { institution_id: tenant.institutionId }] } }]
    : undefined;
  const membership = { group_id: groupId };
  const direction = filter.sort?.direction ?? 'ASC';
  const total = await tenant.groupMembers.count({ where: membership, include });
  const page = await cutPage(
    total,
    filter,
    MEMBER_ORDER.map(([column]) => [column, direction]),
    (order, limit, offset) => tenant.groupMembers.findAll({ attributes: ['student_id'], where: membership, include, order, limit, offset }),
  );
  const people = await membersById(
    tenant,
    groupId,
    page.items.map((member) => member.student_id),
  );
  return { ...page, items: page.items.flatMap((member) => people.get(member.student_id) ?? []) };
}

/**
 * A group's members sorted by name or ID: the group's member ids from the memberships' key, then
 * a page of those people in the requested order. Costs what the group holds (a sort of its
 * members), not what the institution holds.
 */
async function sortedGroupPage(tenant: Tenant, groupId: string, where: WhereOptions[], filter: PeopleFilter, order: OrderItem[]): Promise<Page<PersonRecord>> {
  const members = await tenant.groupMembers.findAll({ attributes: ['student_id'], where: { group_id: groupId } });
  if (members.length === 0) return cutPage(0, filter, order, async () => []);
  return tenant.people.byKey().pagePlain({ where: { [Op.and]: [...where, { id: { [Op.in]: members.map((member) => member.student_id) } }] }, order }, filter);
}

/** How many people of a role (and status) the institution has, from the counts its triggers keep. */
async function countPeople(tenant: Tenant, role: PersonRole, status: PersonStatus | undefined): Promise<number> {
  const rows = await tenant.personCounts.findAllPlain({ attributes: ['total'], where: status ? { role, status } : { role } });
  return rows.reduce((sum, row) => sum + row.total, 0);
}

/**
 * One page of the institution's students or faculty, oldest first unless `sort` says otherwise,
 * as GET /v1/students and /v1/faculty filter them. Every path costs what its matches cost, not
 * what the institution holds (docs/decisions.md#list-indexes, #counted-totals, #sorted-lists):
 * the unfiltered and `status` totals come from the counts the database keeps, and each order has
 * its index; `email` and `student_id` match a few rows on their own indexes; `group_id` pages the
 * group's memberships in the students' creation order.
 */
export async function listPeople(tenant: Tenant, role: PersonRole, filter: PeopleFilter): Promise<Page<PersonRecord>> {
  const where: WhereOptions[] = [{ role }];
  if (filter.status) where.push({ status: filter.status });
  if (filter.external_id) where.push({ external_id: filter.external_id });
  if (filter.q) where.push(...searchConditions(tenant, filter.q));
  const order = sortedOrder(filter.sort, SORT_COLUMNS, CREATION_ORDER);
  if (filter.email) {
    // A few people by their email; in the group, when one is given, by their memberships' key.
    let found = await matchingEmail(tenant, where, filter.email);
    if (filter.group_id && found.length > 0) {
      const members = await membersById(
        tenant,
        filter.group_id,
        found.map((person) => person.id),
      );
      found = found.filter((person) => members.has(person.id));
    } else if (filter.group_id) found = [];
    const offset = (filter.page - 1) * filter.limit;
    return {
      items: found.sort(compareInOrder(order)).slice(offset, offset + filter.limit),
      page: filter.page,
      limit: filter.limit,
      total: found.length,
      totalPages: Math.ceil(found.length / filter.limit),
    };
  }
  if (filter.group_id) {
    // A group's members are all students.
    if (role !== 'student') return cutPage(0, filter, undefined, async () => []);
    // Matches of `q` in a group: the group's members, then those that match.
    return filter.q || (filter.sort && filter.sort.column !== 'created_at')
      ? sortedGroupPage(tenant, filter.group_id, where, filter, order)
      : groupPage(tenant, filter.group_id, where, filter);
  }
  if (filter.q) return searchPage(tenant, where, filter, order);
  const counted = filter.external_id ? undefined : await countPeople(tenant, role, filter.status);
  return tenant.people.pagePlain({ where: { [Op.and]: where }, order }, filter, counted);
}
