import { Op, Sequelize, type WhereOptions } from 'sequelize';
import { searchPatterns } from '../../db/search-text.js';
import { compareInOrder, sortedOrder, type OrderItem } from '../../db/sort.js';
import { type Tenant } from '../../db/tenant.js';
import { cutPage, type Page, type PageRequest } from '../../db/paging.js';
import type { PersonRecord, PersonRole, PersonRow, PersonStatus } from '../../models/person.js';
import type { ListSort } from '../../validation/sort.js';
import { normalizeEmail } from '../../validation/people.js';
import { personalEmailIndex } from './people.js';

/** The columns a people list sorts by; `external_id` is `student_id` or `faculty_id` on the wire. */
export type PeopleSortColumn = 'created_at' | 'full_name' | 'external_id';

/** People's paths accept the internal id or the generated login email. */
export interface PeopleFilter extends PageRequest {
  email?: string;
  status?: PersonStatus;
  /** The institution's own identifier (`student_id` on the wire). */
  external_id?: string;
  /** Part of the name, id or login e-mail, whatever its case and accents (docs/api.md#finding-people). */
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

/** An FTS5 query of the trigram table: every part as a phrase, which this tokenizer matches as a substring. */
function ftsQuery(indexed: readonly string[]): string {
  // Folded text holds letters, digits and spaces only: nothing to escape inside the quotes.
  return indexed.map((core) => `"${core}"`).join(' AND ');
}

/**
 * The conditions `q` adds on `people`: every pattern on the stored search text
 * (server/db/search-text.ts), which PostgreSQL's trigram index serves; on SQLite, also the FTS5
 * matches, read by primary key (docs/decisions/people-search.md).
 */
function searchConditions(tenant: Tenant, query: string): WhereOptions[] {
  const { like, indexed } = searchPatterns(query);
  const conditions: WhereOptions[] = like.map((pattern) => ({ search_text: { [Op.like]: pattern } }));
  if (!tenant.onPostgres && indexed.length > 0) {
    conditions.push({
      id: {
        [Op.in]: Sequelize.literal(
          `(SELECT rows.person_id FROM people_search JOIN people_search_rows AS rows ON rows.search_rowid = people_search.rowid WHERE people_search MATCH ${tenant.sqlString(ftsQuery(indexed))})`,
        ),
      },
    });
  }
  return conditions;
}

/** The people of `ids`, in that order. */
async function peopleInOrder(tenant: Tenant, ids: readonly string[]): Promise<PersonRecord[]> {
  if (ids.length === 0) return [];
  const rows = await tenant.people.byKey().findAllPlain({ where: { id: { [Op.in]: [...ids] } } });
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

type Counted<T> = T & { matches?: number | string };

/** A page cut in SQL with its matches counted beside it (`count(*) OVER ()`); a page past the end has no row to carry the number, and counts it. */
async function countedPage<T>(filter: PageRequest, read: (limit: number, offset: number) => Promise<Array<Counted<T>>>, count: () => Promise<number>) {
  const offset = (filter.page - 1) * filter.limit;
  const rows = await read(filter.limit, offset);
  const total = rows.length > 0 ? Number(rows[0]!.matches) : offset > 0 ? await count() : 0;
  return { rows, total, page: filter.page, limit: filter.limit, totalPages: Math.ceil(total / filter.limit) };
}

const COUNTED = { include: [[Sequelize.literal('count(*) OVER ()'), 'matches']] as Array<[ReturnType<typeof Sequelize.literal>, string]> };

/**
 * A page of `q`'s matches in one statement, counted beside it, so only the page's rows come back;
 * the cost follows the matches, never the institution.
 *
 * - SQLite: the FTS5 matches, then each one's narrow row by its integer key
 *   (`people_search_rows`: institution, role, status, id, name, creation time), filtered and
 *   sorted there; `people` is read for the page alone.
 * - PostgreSQL: `people` itself, its trigram index serving the patterns.
 */
async function searchPage(
  tenant: Tenant,
  filters: readonly WhereOptions[],
  query: string,
  request: PageRequest,
  order: OrderItem[],
): Promise<Page<PersonRecord>> {
  if (tenant.onPostgres) {
    const where = { [Op.and]: [...filters, ...searchConditions(tenant, query)] };
    // Found by the trigram index, not by walking the institution in the page's order.
    const people = tenant.people.byKey();
    const page = await countedPage<PersonRecord>(
      request,
      (limit, offset) => people.findAllPlain({ attributes: COUNTED, where, order, limit, offset }),
      () => people.count({ where }),
    );
    return { ...page, items: page.rows.map(({ matches: _matches, ...person }) => person) };
  }
  const { like, indexed } = searchPatterns(query);
  // Parts of one or two characters at the start of a word have no trigram: checked on the FTS row's text.
  const short = like.filter((pattern) => !indexed.some((core) => pattern === `%${core}%`));
  const matches = `SELECT rowid FROM people_search WHERE people_search MATCH ${tenant.sqlString(ftsQuery(indexed))}${short
    .map((pattern) => ` AND search_text LIKE ${tenant.sqlString(pattern)}`)
    .join('')}`;
  // The filters' columns (role, status, external_id) have the same names on the narrow rows.
  const where = { [Op.and]: [...filters, { search_rowid: { [Op.in]: Sequelize.literal(`(${matches})`) } }] };
  const rows = tenant.peopleSearchRows.byKey();
  const page = await countedPage<{ person_id: string }>(
    request,
    (limit, offset) =>
      rows.findAllPlain({
        attributes: ['person_id', ...COUNTED.include],
        where,
        order: order.map(([column, direction]) => [column === 'id' ? 'person_id' : column, direction]),
        limit,
        offset,
      }),
    () => rows.count({ where }),
  );
  const { rows: found, ...counts } = page;
  return {
    ...counts,
    items: await peopleInOrder(
      tenant,
      found.map((row) => row.person_id),
    ),
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
 * what the institution holds (docs/decisions/list-indexes.md, docs/decisions/counted-totals.md,
 * docs/decisions/sorted-lists.md): the unfiltered and `status` totals come from the counts the
 * database keeps, and each order has its index; `email` and `student_id` match a few rows on their
 * own indexes; `group_id` pages the group's memberships in the students' creation order.
 */
export async function listPeople(tenant: Tenant, role: PersonRole, filter: PeopleFilter): Promise<Page<PersonRecord>> {
  const where: WhereOptions[] = [{ role }];
  if (filter.status) where.push({ status: filter.status });
  if (filter.external_id) where.push({ external_id: filter.external_id });
  const order = sortedOrder(filter.sort, SORT_COLUMNS, CREATION_ORDER);
  if (filter.q && !filter.email && !filter.group_id) return searchPage(tenant, where, filter.q, filter, order);
  // With an email or a group, q narrows the few people those find.
  if (filter.q) where.push(...searchConditions(tenant, filter.q));
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
  const counted = filter.external_id ? undefined : await countPeople(tenant, role, filter.status);
  return tenant.people.pagePlain({ where: { [Op.and]: where }, order }, filter, counted);
}
