import { Op, type WhereOptions } from 'sequelize';
import type { Page, PageRequest, Tenant, TenantTx } from '../db/tenant.js';
import { AppError, notFound } from '../errors.js';
import { emit } from '../events/emit.js';
import { newId } from '../ids.js';
import type { GroupMemberRow } from '../models/group.js';
import type { PersonRole, PersonRow, PersonStatus } from '../models/person.js';
import { ensureEmailDomain } from './institutions.js';
import { grantLicense } from './licenses.js';
import { normalizeEmail } from '../validation/people.js';

const ID_PREFIX: Record<PersonRole, string> = { student: 'stu', faculty: 'fac' };
const NOUN: Record<PersonRole, string> = { student: 'student', faculty: 'faculty member' };

/** Blind-index context of personal emails; the same string must be used to write and to search. */
const PERSONAL_EMAIL = 'people.personal_email';

export function personalEmailColumns(tenant: Tenant, email: string | null | undefined) {
  if (email === undefined) return {};
  if (email === null) return { personal_email_sealed: null, personal_email_index: null };
  const normalized = normalizeEmail(email);
  return {
    personal_email_sealed: tenant.fieldCrypto.encrypt(normalized, PERSONAL_EMAIL),
    personal_email_index: tenant.fieldCrypto.blindIndex(normalized, PERSONAL_EMAIL),
  };
}

/** People's paths accept the internal id or the generated login email. */
export interface PeopleFilter extends PageRequest {
  email?: string;
  status?: PersonStatus;
  /** The institution's own identifier (`student_id` on the wire). */
  external_id?: string;
  /** Students only: members of this group. */
  group_id?: string;
}

const byCreation = (a: PersonRow, b: PersonRow) => a.created_at.getTime() - b.created_at.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * The people an `email` or `group_id` filter matches (with the other filters), or undefined when
 * neither is given. Each is looked up on its own index and matches few rows, so the page is cut
 * from those rows instead of walking every person in creation order (docs/decisions.md#list-indexes).
 */
async function filteredFirst(tenant: Tenant, where: WhereOptions[], filter: PeopleFilter): Promise<PersonRow[] | undefined> {
  let found: PersonRow[] | undefined;
  if (filter.email) {
    // Two lookups by the email alone, not one OR beside the other filters: each is then planned on
    // its own index (login_email, the blind index). The few ids found are read by primary key.
    const normalized = normalizeEmail(filter.email);
    const matches = await Promise.all([
      tenant.people.findAll({ attributes: ['id'], where: { login_email: normalized } }),
      tenant.people.findAll({ attributes: ['id'], where: { personal_email_index: tenant.fieldCrypto.blindIndex(normalized, PERSONAL_EMAIL) } }),
    ]);
    const ids = [...new Set(matches.flat().map((person) => person.id))];
    found = ids.length > 0 ? await tenant.people.findAll({ where: { [Op.and]: [...where, { id: { [Op.in]: ids } }] } }) : [];
  }
  if (filter.group_id) {
    // From the memberships to the people: the join starts on the group's index, not on every student.
    const members = (await tenant.groupMembers.findAll({
      attributes: ['student_id'],
      where: { group_id: filter.group_id },
      include: [{ association: 'student', required: true, where: { [Op.and]: [...where, { institution_id: tenant.institutionId }] } }],
    })) as Array<GroupMemberRow & { student: PersonRow }>;
    const inGroup = members.map((member) => member.student);
    const memberIds = new Set(inGroup.map((person) => person.id));
    found = found ? found.filter((person) => memberIds.has(person.id)) : inGroup;
  }
  return found;
}

/** One page of the institution's students or faculty, oldest first, as GET /v1/students and /v1/faculty filter them. */
export async function listPeople(tenant: Tenant, role: PersonRole, filter: PeopleFilter): Promise<Page<PersonRow>> {
  const where: WhereOptions[] = [{ role }];
  if (filter.status) where.push({ status: filter.status });
  if (filter.external_id) where.push({ external_id: filter.external_id });
  const found = await filteredFirst(tenant, where, filter);
  if (found === undefined) {
    return tenant.people.page(
      {
        where: { [Op.and]: where },
        order: [
          ['created_at', 'ASC'],
          ['id', 'ASC'],
        ],
      },
      filter,
    );
  }
  const offset = (filter.page - 1) * filter.limit;
  const items = found.sort(byCreation).slice(offset, offset + filter.limit);
  return { items, page: filter.page, limit: filter.limit, total: found.length, totalPages: Math.ceil(found.length / filter.limit) };
}

export function personRefWhere(role: PersonRole, ref: string) {
  return ref.includes('@') ? { role, login_email: normalizeEmail(ref) } : { role, id: ref };
}

export async function findPerson(tenant: Tenant, role: PersonRole, ref: string): Promise<PersonRow> {
  const person = await tenant.people.findOne({ where: personRefWhere(role, ref) });
  if (!person) throw notFound(NOUN[role]);
  return person;
}

/**
 * The one rule for every `student_ids` list: refs (ids or login emails) that are not students of
 * this institution are skipped and reported; a non-empty list with no valid id is `no_valid_students`.
 */
export async function resolveStudents(tenant: Tenant, refs: readonly string[]): Promise<{ students: PersonRow[]; rejected: string[] }> {
  const unique = [...new Set(refs)];
  if (unique.length === 0) return { students: [], rejected: [] };
  const ids = unique.filter((ref) => !ref.includes('@'));
  const emails = unique.filter((ref) => ref.includes('@')).map(normalizeEmail);
  const found = await tenant.people.findAll({
    where: { role: 'student', [Op.or]: [{ id: { [Op.in]: ids } }, { login_email: { [Op.in]: emails } }] },
  });
  const byRef = new Map<string, PersonRow>();
  for (const person of found) {
    byRef.set(person.id, person);
    byRef.set(person.login_email, person);
  }
  const students = new Map<string, PersonRow>();
  const rejected: string[] = [];
  for (const ref of unique) {
    const person = byRef.get(ref.includes('@') ? normalizeEmail(ref) : ref);
    if (person) students.set(person.id, person);
    else rejected.push(ref);
  }
  if (students.size === 0) {
    throw new AppError('no_valid_students', 'None of the given student ids belongs to a student of this institution.', {
      rejected_student_ids: rejected,
    });
  }
  return { students: [...students.values()], rejected };
}

/** An owner or guide: missing is `no_owner`; unknown or suspended is `invalid_faculty`. */
export async function resolveActiveFaculty(tenant: Tenant, ref: string | null | undefined): Promise<PersonRow> {
  if (ref === undefined || ref === null || ref === '') throw new AppError('no_owner', 'faculty_id is required: every record needs an owning teacher.');
  const person = await tenant.people.findOne({ where: personRefWhere('faculty', ref) });
  if (!person || person.status !== 'active') {
    throw new AppError('invalid_faculty', `faculty_id "${ref}" is not an active faculty member of this institution.`);
  }
  return person;
}

function loginLocalPart(fullName: string, role: PersonRole): string {
  const words = fullName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const local = words.join('.').slice(0, 40).replace(/\.+$/, '');
  return local || role;
}

/**
 * `ada.lovelace@riverside-high.campusbridge.local`, then `ada.lovelace2@…` when taken. Generated
 * once at creation and never changed, so it can serve as a stable id. Runs inside the write
 * transaction, so two creations cannot pick the same address.
 */
export async function generateLoginEmail(tx: TenantTx, fullName: string, role: PersonRole): Promise<string> {
  const domain = await ensureEmailDomain(tx);
  const local = loginLocalPart(fullName, role);
  const taken = await tx.people.findAll({
    attributes: ['login_email'],
    where: { login_email: { [Op.like]: `${local}%@${domain}` } },
  });
  const used = new Set(taken.map((row) => row.login_email));
  for (let n = 1; ; n += 1) {
    const candidate = `${local}${n === 1 ? '' : n}@${domain}`;
    if (!used.has(candidate)) return candidate;
  }
}

export interface NewPerson {
  full_name: string;
  external_id?: string | null;
  personal_email?: string | null;
  license_days: number;
}

async function assertExternalIdFree(tx: TenantTx, role: PersonRole, externalId: string | null | undefined, exceptId?: string) {
  if (!externalId) return;
  const clash = await tx.people.findOne({ attributes: ['id'], where: { role, external_id: externalId } });
  if (clash && clash.id !== exceptId) {
    const field = role === 'student' ? 'student_id' : 'faculty_id';
    throw new AppError('conflict', `Another ${NOUN[role]} already has ${field} "${externalId}".`);
  }
}

/** A person, their license and the `<role>.created` event, in the caller's transaction. */
export async function createPerson(tx: TenantTx, role: PersonRole, input: NewPerson): Promise<PersonRow> {
  await assertExternalIdFree(tx, role, input.external_id);
  const person = await tx.people.create({
    id: newId(ID_PREFIX[role]),
    role,
    login_email: await generateLoginEmail(tx, input.full_name, role),
    full_name: input.full_name,
    external_id: input.external_id ?? null,
    personal_email_sealed: null,
    personal_email_index: null,
    ...personalEmailColumns(tx, input.personal_email),
    status: 'active',
  });
  const license = await grantLicense(tx, person, input.license_days);
  await emit(tx, role === 'student' ? 'student.created' : 'faculty.created', {
    [role === 'student' ? 'student_id' : 'faculty_id']: person.id,
    license_id: license.id,
  });
  return person;
}

export interface PersonPatch {
  full_name?: string;
  external_id?: string | null;
  status?: PersonStatus;
  personal_email?: string | null;
}

/** PATCH: changes what is given; emits `<role>.updated` with the names of the fields that changed. */
export async function updatePerson(tenant: Tenant, role: PersonRole, ref: string, patch: PersonPatch): Promise<PersonRow> {
  return tenant.inTransaction(async (tx) => {
    const person = await findPerson(tx, role, ref);
    const changes: Partial<PersonRow> = {};
    const changed: string[] = [];
    if (patch.full_name !== undefined && patch.full_name !== person.full_name) {
      changes.full_name = patch.full_name;
      changed.push('full_name');
    }
    if (patch.external_id !== undefined && patch.external_id !== person.external_id) {
      await assertExternalIdFree(tx, role, patch.external_id, person.id);
      changes.external_id = patch.external_id;
      changed.push(role === 'student' ? 'student_id' : 'faculty_id');
    }
    if (patch.status !== undefined && patch.status !== person.status) {
      changes.status = patch.status;
      changed.push('status');
    }
    // Personal email changes are saved but not announced: the event must not hint at it.
    Object.assign(changes, personalEmailColumns(tx, patch.personal_email));
    if (Object.keys(changes).length === 0) return person;
    await person.update(changes, { transaction: tx.tx });
    if (changed.length > 0) {
      const idField = role === 'student' ? 'student_id' : 'faculty_id';
      await emit(tx, role === 'student' ? 'student.updated' : 'faculty.updated', { [idField]: person.id, changed, status: person.status });
    }
    return person;
  });
}

/** Suspend or reactivate a student; idempotent, with an event only when the status changes. */
export async function setStudentStatus(tenant: Tenant, ref: string, status: PersonStatus): Promise<PersonRow> {
  return tenant.inTransaction(async (tx) => {
    const person = await findPerson(tx, 'student', ref);
    if (person.status === status) return person;
    await person.update({ status }, { transaction: tx.tx });
    await emit(tx, status === 'suspended' ? 'student.suspended' : 'student.reactivated', { student_id: person.id });
    return person;
  });
}
