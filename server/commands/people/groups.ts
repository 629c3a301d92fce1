import { sortedOrder } from '../../db/sort.js';
import type { ListSort } from '../../validation/sort.js';
import { Op, Sequelize, type WhereOptions } from 'sequelize';
import type { Tenant, TenantTx } from '../../db/tenant.js';
import type { Page, PageRequest } from '../../db/paging.js';
import { AppError, notFound } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { newId } from '../../ids.js';
import type { ExamApp, ExamStatus } from '../../models/exam.js';
import type { GroupRow } from '../../models/group.js';
import type { PersonRow } from '../../models/person.js';
import { personRefWhere, resolveActiveFaculty, resolveStudents } from './people.js';

/** A group with its member count: what the Group object is made from. */
export interface CountedGroup {
  group: GroupRow;
  studentCount: number;
}

export interface GroupMember {
  student: PersonRow;
  addedAt: Date;
}

/** An exam assigned to a group, as the single GET shows it. */
export interface GroupExam {
  id: string;
  title: string;
  status: ExamStatus;
  app: ExamApp;
  due_date: string | null;
  [field: string]: unknown;
}

export interface GroupDetail extends CountedGroup {
  members: GroupMember[];
  exams: GroupExam[];
}

export async function findGroup(tenant: Tenant, id: string): Promise<GroupRow> {
  const group = await tenant.groups.findById(id);
  if (!group) throw notFound('group');
  return group;
}

const countMembers = (tenant: Tenant, groupId: string) => tenant.groupMembers.count({ where: { group_id: groupId } });

/** Member counts of several groups in one query; groups without members are absent (0). */
async function memberCounts(tenant: Tenant, groupIds: readonly string[]): Promise<Map<string, number>> {
  if (groupIds.length === 0) return new Map();
  const rows = (await tenant.groupMembers.findAll({
    attributes: ['group_id', [Sequelize.fn('COUNT', Sequelize.col('student_id')), 'student_count']],
    where: { group_id: { [Op.in]: [...groupIds] } },
    group: ['group_id'],
    raw: true,
  })) as unknown as Array<{ group_id: string; student_count: number | string }>;
  return new Map(rows.map((row) => [row.group_id, Number(row.student_count)]));
}

/** `%`, `_` and the escape character itself match literally. */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

/**
 * Case-insensitive substring of the name, in SQL that SQLite and PostgreSQL read alike. Both sides
 * go through the database's lower(), so text typed exactly as stored always matches (SQLite's
 * lower() folds ASCII only; PostgreSQL's folds all letters).
 */
function nameContains(tenant: Tenant, text: string): WhereOptions {
  const pattern = tenant.sqlString(`%${escapeLike(text)}%`);
  return Sequelize.where(Sequelize.fn('lower', Sequelize.col('name')), Op.like, Sequelize.literal(`lower(${pattern}) ESCAPE '\\'`));
}

export interface GroupFilter extends PageRequest {
  faculty_id?: string;
  student_id?: string;
  q?: string;
  sort?: ListSort<'name' | 'created_at'>;
}

export async function listGroups(tenant: Tenant, filter: GroupFilter): Promise<Page<CountedGroup>> {
  // An unknown teacher owns nothing and an unknown student is in nothing: an empty page, not an
  // error, as for any filter.
  const nothing: Page<CountedGroup> = { items: [], page: filter.page, limit: filter.limit, total: 0, totalPages: 0 };
  const where: WhereOptions[] = [];
  if (filter.faculty_id !== undefined) {
    const owner = await tenant.people.findOne({ attributes: ['id'], where: personRefWhere('faculty', filter.faculty_id) });
    if (!owner) return nothing;
    where.push({ faculty_id: owner.id });
  }
  if (filter.student_id !== undefined) {
    const student = await tenant.people.findOne({ attributes: ['id'], where: personRefWhere('student', filter.student_id) });
    if (!student) return nothing;
    const memberships = await tenant.groupMembers.findAll({ attributes: ['group_id'], where: { student_id: student.id } });
    if (memberships.length === 0) return nothing;
    where.push({ id: { [Op.in]: memberships.map((row) => row.group_id) } });
  }
  if (filter.q) where.push(nameContains(tenant, filter.q));
  const page = await tenant.groups.page(
    {
      where: where.length > 0 ? { [Op.and]: where } : undefined,
      order: sortedOrder(filter.sort, { name: 'name', created_at: 'created_at' }, [
        ['created_at', 'ASC'],
        ['id', 'ASC'],
      ]),
    },
    filter,
  );
  const counts = await memberCounts(
    tenant,
    page.items.map((group) => group.id),
  );
  return { ...page, items: page.items.map((group) => ({ group, studentCount: counts.get(group.id) ?? 0 })) };
}

/** Exams assigned to the group, drafts included, oldest assignment first. */
async function groupExams(tenant: Tenant, groupId: string): Promise<GroupExam[]> {
  const assignments = await tenant.examAssignments.findAll({
    attributes: ['exam_id'],
    where: { group_id: groupId },
    order: [
      ['assigned_at', 'ASC'],
      ['exam_id', 'ASC'],
    ],
  });
  if (assignments.length === 0) return [];
  const exams = await tenant.exams.findAll({
    attributes: ['id', 'title', 'status', 'app', 'due_date'],
    where: { id: { [Op.in]: assignments.map((row) => row.exam_id) } },
  });
  const byId = new Map(exams.map((exam) => [exam.id, exam]));
  return assignments.flatMap((row) => {
    const exam = byId.get(row.exam_id);
    return exam ? [{ id: exam.id, title: exam.title, status: exam.status, app: exam.app, due_date: exam.due_date ? exam.due_date.toISOString() : null }] : [];
  });
}

/** Members ordered by when they joined; those who joined together, by name. */
async function groupMembers(tenant: Tenant, groupId: string): Promise<GroupMember[]> {
  const memberships = await tenant.groupMembers.findAll({ where: { group_id: groupId } });
  if (memberships.length === 0) return [];
  const students = await tenant.people.findAll({ where: { role: 'student', id: { [Op.in]: memberships.map((row) => row.student_id) } } });
  const byId = new Map(students.map((student) => [student.id, student]));
  const members: GroupMember[] = [];
  for (const membership of memberships) {
    const student = byId.get(membership.student_id);
    if (student) members.push({ student, addedAt: membership.added_at });
  }
  return members.sort(
    (a, b) =>
      a.addedAt.getTime() - b.addedAt.getTime() ||
      a.student.full_name.localeCompare(b.student.full_name) ||
      (a.student.id < b.student.id ? -1 : a.student.id > b.student.id ? 1 : 0),
  );
}

export async function getGroupDetail(tenant: Tenant, id: string): Promise<GroupDetail> {
  const group = await findGroup(tenant, id);
  const [members, exams] = await Promise.all([groupMembers(tenant, group.id), groupExams(tenant, group.id)]);
  return { group, studentCount: members.length, members, exams };
}

async function addMemberships(tx: TenantTx, groupId: string, students: readonly PersonRow[]): Promise<void> {
  const addedAt = new Date();
  for (const student of students) {
    await tx.groupMembers.create({ group_id: groupId, student_id: student.id, added_at: addedAt, student_created_at: student.created_at });
  }
}

/** Saves the group's own fields, if any, and moves `updated_at`: membership changes count as changes. */
async function touchGroup(tx: TenantTx, group: GroupRow, changes: Partial<Pick<GroupRow, 'name' | 'description' | 'faculty_id'>> = {}) {
  group.set(changes);
  group.changed('updated_at', true);
  await group.save({ transaction: tx.tx });
}

export interface NewGroup {
  name: string;
  description: string;
  faculty_id?: string | null;
  student_ids?: readonly string[];
}

export interface GroupWrite extends CountedGroup {
  rejected: string[];
}

/** A group, its first members and `group.created`, in one transaction. */
export function createGroup(tenant: Tenant, input: NewGroup): Promise<GroupWrite> {
  return tenant.inTransaction(async (tx) => {
    const owner = await resolveActiveFaculty(tx, input.faculty_id);
    const { students, rejected } = await resolveStudents(tx, input.student_ids ?? []);
    const group = await tx.groups.create({ id: newId('grp'), name: input.name, description: input.description, faculty_id: owner.id });
    await addMemberships(tx, group.id, students);
    await emit(tx, 'group.created', { group_id: group.id, faculty_id: owner.id, student_count: students.length });
    return { group, studentCount: students.length, rejected };
  });
}

export interface GroupPatch {
  name?: string;
  description?: string;
  faculty_id?: string | null;
  /** Replaces the whole membership. */
  student_ids?: readonly string[];
}

/**
 * PATCH: changes what is given; `student_ids` replaces the membership (members who stay keep
 * their `added_at`). Emits `group.updated` with the names of what changed, only when something did.
 */
export function updateGroup(tenant: Tenant, id: string, patch: GroupPatch): Promise<GroupWrite> {
  return tenant.inTransaction(async (tx) => {
    const group = await findGroup(tx, id);
    const changes: Partial<Pick<GroupRow, 'name' | 'description' | 'faculty_id'>> = {};
    const changed: string[] = [];
    if (patch.name !== undefined && patch.name !== group.name) {
      changes.name = patch.name;
      changed.push('name');
    }
    if (patch.description !== undefined && patch.description !== group.description) {
      changes.description = patch.description;
      changed.push('description');
    }
    if (patch.faculty_id !== undefined) {
      const owner = await resolveActiveFaculty(tx, patch.faculty_id);
      if (owner.id !== group.faculty_id) {
        changes.faculty_id = owner.id;
        changed.push('faculty_id');
      }
    }

    let rejected: string[] = [];
    if (patch.student_ids !== undefined) {
      const resolved = await resolveStudents(tx, patch.student_ids);
      rejected = resolved.rejected;
      const wanted = new Set(resolved.students.map((student) => student.id));
      const current = await tx.groupMembers.findAll({ attributes: ['student_id'], where: { group_id: group.id } });
      const currentIds = new Set(current.map((row) => row.student_id));
      const leaving = [...currentIds].filter((studentId) => !wanted.has(studentId));
      const joining = resolved.students.filter((student) => !currentIds.has(student.id));
      if (leaving.length > 0) await tx.groupMembers.destroy({ group_id: group.id, student_id: { [Op.in]: leaving } });
      await addMemberships(tx, group.id, joining);
      if (leaving.length > 0 || joining.length > 0) changed.push('members');
    }

    const studentCount = await countMembers(tx, group.id);
    if (changed.length > 0) {
      await touchGroup(tx, group, changes);
      await emit(tx, 'group.updated', { group_id: group.id, changed, student_count: studentCount });
    }
    return { group, studentCount, rejected };
  });
}

export function deleteGroup(tenant: Tenant, id: string): Promise<{ id: string; deleted: true }> {
  return tenant.inTransaction(async (tx) => {
    const group = await findGroup(tx, id);
    await tx.groupMembers.destroy({ group_id: group.id });
    await tx.examAssignments.destroy({ group_id: group.id });
    await tx.groups.destroy({ id: group.id });
    await emit(tx, 'group.deleted', { group_id: group.id });
    return { id: group.id, deleted: true as const };
  });
}

export interface MembersAdded extends GroupWrite {
  /** Internal ids of the students this call added, in the order given. */
  added: string[];
}

/** Adds the valid students who are not members yet; when every valid one already is: `409 already_added`. */
export function addGroupMembers(tenant: Tenant, id: string, studentIds: readonly string[]): Promise<MembersAdded> {
  return tenant.inTransaction(async (tx) => {
    const group = await findGroup(tx, id);
    const { students, rejected } = await resolveStudents(tx, studentIds);
    const existing = await tx.groupMembers.findAll({
      attributes: ['student_id'],
      where: { group_id: group.id, student_id: { [Op.in]: students.map((student) => student.id) } },
    });
    const members = new Set(existing.map((row) => row.student_id));
    const joining = students.filter((student) => !members.has(student.id));
    if (joining.length === 0) {
      throw new AppError('already_added', 'Every valid student given is already a member of this group.', { rejected_student_ids: rejected });
    }
    await addMemberships(tx, group.id, joining);
    const studentCount = await countMembers(tx, group.id);
    await touchGroup(tx, group);
    await emit(tx, 'group.updated', { group_id: group.id, changed: ['members'], student_count: studentCount });
    return { group, studentCount, added: joining.map((student) => student.id), rejected };
  });
}

/** Removes one member; a ref that is not a student of this institution, or not a member, is `404 not_found`. */
export function removeGroupMember(tenant: Tenant, id: string, studentRef: string): Promise<CountedGroup> {
  return tenant.inTransaction(async (tx) => {
    const group = await findGroup(tx, id);
    const student = await tx.people.findOne({ attributes: ['id'], where: personRefWhere('student', studentRef) });
    if (!student) throw notFound('student');
    const removed = await tx.groupMembers.destroy({ group_id: group.id, student_id: student.id });
    if (removed === 0) throw new AppError('not_found', 'That student is not a member of this group.');
    const studentCount = await countMembers(tx, group.id);
    await touchGroup(tx, group);
    await emit(tx, 'group.updated', { group_id: group.id, changed: ['members'], student_count: studentCount });
    return { group, studentCount };
  });
}
