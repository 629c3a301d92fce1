import { Op } from 'sequelize';
import { searchTextOf } from '../../db/search-text.js';
import type { Tenant, TenantTx } from '../../db/tenant.js';
import { AppError, notFound } from '../../errors.js';
import { emit, emitAll } from '../../events/emit.js';
import { newId } from '../../ids.js';
import type { PersonRole, PersonRow, PersonStatus } from '../../models/person.js';
import { ensureEmailDomain } from '../institutions/institutions.js';
import { grantLicenses } from './licenses.js';
import { normalizeEmail } from '../../validation/people.js';
import { loginLocalPart } from './login-names.js';

const ID_PREFIX: Record<PersonRole, string> = { student: 'stu', faculty: 'fac' };
const NOUN: Record<PersonRole, string> = { student: 'student', faculty: 'faculty member' };

/** Blind-index context of personal emails; the same string must be used to write and to search. */
const PERSONAL_EMAIL = 'people.personal_email';

/** The blind index a personal email is found by. */
export function personalEmailIndex(tenant: Tenant, email: string): string {
  return tenant.fieldCrypto.blindIndex(normalizeEmail(email), PERSONAL_EMAIL);
}

export function personalEmailColumns(tenant: Tenant, email: string | null | undefined) {
  if (email === undefined) return {};
  if (email === null) return { personal_email_sealed: null, personal_email_index: null };
  const normalized = normalizeEmail(email);
  return {
    personal_email_sealed: tenant.fieldCrypto.encrypt(normalized, PERSONAL_EMAIL),
    personal_email_index: tenant.fieldCrypto.blindIndex(normalized, PERSONAL_EMAIL),
  };
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

/** Suffixes tried beyond what a batch needs, per name and lookup: `ada.lovelace@`, `ada.lovelace2@`, … */
const SPARE_CANDIDATES = 4;

/**
 * `ada.lovelace@riverside-high.campusbridge.local`, then `ada.lovelace2@…` when taken. Generated
 * once at creation and never changed, so it can serve as a stable id. Runs inside the write
 * transaction, so two creations cannot pick the same address. The taken ones are found by exact
 * lookups of candidate addresses on the unique index, a few per name at a time, never by a
 * pattern scan of the institution; a batch looks up all its names at once.
 */
export async function generateLoginEmails(tx: TenantTx, fullNames: readonly string[], role: PersonRole): Promise<string[]> {
  const domain = await ensureEmailDomain(tx);
  const address = (local: string, n: number) => `${local}${n === 1 ? '' : n}@${domain}`;
  const locals = fullNames.map((name) => loginLocalPart(name, role));
  const needed = new Map<string, number>();
  for (const local of locals) needed.set(local, (needed.get(local) ?? 0) + 1);

  const free = new Map<string, string[]>();
  const nextSuffix = new Map<string, number>();
  let short = [...needed.keys()];
  while (short.length > 0) {
    // This round's suffixes per name: as many as are still missing, and a few spare.
    const rounds = short.map((local) => {
      const from = nextSuffix.get(local) ?? 1;
      const to = from + needed.get(local)! - (free.get(local)?.length ?? 0) + SPARE_CANDIDATES;
      nextSuffix.set(local, to);
      return { local, candidates: Array.from({ length: to - from }, (_, i) => address(local, from + i)) };
    });
    const taken = await tx.people.findAll({
      attributes: ['login_email'],
      where: { login_email: { [Op.in]: rounds.flatMap((round) => round.candidates) } },
    });
    const used = new Set(taken.map((row) => row.login_email));
    for (const { local, candidates } of rounds) {
      const list = free.get(local) ?? [];
      for (const candidate of candidates) if (!used.has(candidate) && list.length < needed.get(local)!) list.push(candidate);
      free.set(local, list);
    }
    short = short.filter((local) => free.get(local)!.length < needed.get(local)!);
  }
  // Each name's free addresses, lowest suffix first, handed out in the order the names were given.
  const handedOut = new Map<string, number>();
  return locals.map((local) => {
    const index = handedOut.get(local) ?? 0;
    handedOut.set(local, index + 1);
    return free.get(local)![index]!;
  });
}

export interface NewPerson {
  full_name: string;
  external_id?: string | null;
  personal_email?: string | null;
  license_days: number;
}

export function externalIdConflict(role: PersonRole, externalId: string): AppError {
  const field = role === 'student' ? 'student_id' : 'faculty_id';
  return new AppError('conflict', `Another ${NOUN[role]} already has ${field} "${externalId}".`);
}

/** The given `student_id`s (or `faculty_id`s) that a person of the institution already has. */
export async function takenExternalIds(tx: TenantTx, role: PersonRole, externalIds: readonly string[]): Promise<Set<string>> {
  if (externalIds.length === 0) return new Set();
  const rows = await tx.people.findAll({ attributes: ['external_id'], where: { role, external_id: { [Op.in]: [...new Set(externalIds)] } } });
  return new Set(rows.flatMap((row) => (row.external_id ? [row.external_id] : [])));
}

async function assertExternalIdFree(tx: TenantTx, role: PersonRole, externalId: string | null | undefined, exceptId?: string) {
  if (!externalId) return;
  const clash = await tx.people.findOne({ attributes: ['id'], where: { role, external_id: externalId } });
  if (clash && clash.id !== exceptId) throw externalIdConflict(role, externalId);
}

/**
 * Creation times for `count` new people of a role: now, but strictly after the newest, one
 * millisecond apart, so lists (oldest first) keep the order people were given in, within a batch
 * and across batches.
 */
async function creationTimes(tx: TenantTx, role: PersonRole, count: number): Promise<Date[]> {
  const newest = await tx.people.findOne({
    attributes: ['created_at'],
    where: { role },
    order: [
      ['created_at', 'DESC'],
      ['id', 'DESC'],
    ],
  });
  const first = Math.max(Date.now(), newest ? newest.created_at.getTime() + 1 : 0);
  return Array.from({ length: count }, (_, index) => new Date(first + index));
}

/**
 * People, their licenses and the `<role>.created` events, in the caller's transaction; the
 * caller has checked their `external_id`s are free. A constant number of statements whatever
 * the batch's size (docs/decisions/batched-writes.md).
 */
export async function createPeople(tx: TenantTx, role: PersonRole, inputs: readonly NewPerson[]): Promise<PersonRow[]> {
  if (inputs.length === 0) return [];
  const loginEmails = await generateLoginEmails(
    tx,
    inputs.map((input) => input.full_name),
    role,
  );
  const createdAt = await creationTimes(tx, role, inputs.length);
  const people = await tx.people.bulkCreate(
    inputs.map((input, index) => ({
      id: newId(ID_PREFIX[role]),
      role,
      login_email: loginEmails[index]!,
      full_name: input.full_name,
      external_id: input.external_id ?? null,
      personal_email_sealed: null,
      personal_email_index: null,
      ...personalEmailColumns(tx, input.personal_email),
      status: 'active' as const,
      search_text: searchTextOf({ full_name: input.full_name, external_id: input.external_id ?? null, login_email: loginEmails[index]! }),
      created_at: createdAt[index]!,
      updated_at: createdAt[index]!,
    })),
  );
  const licenses = await grantLicenses(
    tx,
    people,
    inputs.map((input) => input.license_days),
  );
  const idField = role === 'student' ? 'student_id' : 'faculty_id';
  await emitAll(
    tx,
    people.map((person, index) => ({
      type: role === 'student' ? 'student.created' : 'faculty.created',
      data: { [idField]: person.id, license_id: licenses[index]!.id },
    })),
  );
  return people;
}

/** A person, their license and the `<role>.created` event, in the caller's transaction. */
export async function createPerson(tx: TenantTx, role: PersonRole, input: NewPerson): Promise<PersonRow> {
  await assertExternalIdFree(tx, role, input.external_id);
  const [person] = await createPeople(tx, role, [input]);
  return person!;
}

export interface PersonPatch {
  full_name?: string;
  external_id?: string | null;
  status?: PersonStatus;
  personal_email?: string | null;
}

/** Sets `changes.search_text` for a person whose name or id `changes` changes. */
function searchable(person: PersonRow, changes: Partial<PersonRow>): void {
  changes.search_text = searchTextOf({
    full_name: changes.full_name ?? person.full_name,
    external_id: changes.external_id !== undefined ? changes.external_id : person.external_id,
    login_email: person.login_email,
  });
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
    if (changes.full_name !== undefined || changes.external_id !== undefined) searchable(person, changes);
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
