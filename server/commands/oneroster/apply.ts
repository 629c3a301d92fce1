import { Op } from 'sequelize';
import type { TenantTx } from '../../db/tenant.js';
import { emitAll, type NewEvent } from '../../events/emit.js';
import { newId } from '../../ids.js';
import type { OneRosterConnectionRow } from '../../models/oneroster.js';
import type { PersonRole } from '../../models/person.js';
import { createPeople, personalEmailColumns } from '../people/people.js';
import type { PersonRef, SyncPlan } from './plan-steps.js';

/** Licenses of people a sync creates: a school year, as for a student made without `license_days`. */
const LICENSE_DAYS = 365;

/** People a sync has created so far, by sourcedId. */
export type CreatedPeople = Map<string, { id: string; created_at: Date }>;

/** New people per transaction: a sync of thousands lets the institution's other writers take turns between them. */
export const PEOPLE_PER_TRANSACTION = 250;

/**
 * The people of `plan.createPeople[from, to)`, created in the caller's transaction with their links
 * to the SIS, so a sync cut short after this leaves them linked and the next one does not make them
 * again. They emit their own created events. Adds them to `created`.
 */
export async function createPlannedPeople(
  tx: TenantTx,
  connection: OneRosterConnectionRow,
  plan: SyncPlan,
  from: number,
  to: number,
  created: CreatedPeople,
): Promise<void> {
  const slice = plan.createPeople.slice(from, to);
  const now = new Date();
  for (const role of ['faculty', 'student'] as PersonRole[]) {
    const inputs = slice.filter((person) => person.role === role);
    const rows = await createPeople(
      tx,
      role,
      inputs.map((input) => ({ full_name: input.full_name, external_id: input.external_id, personal_email: input.email, license_days: LICENSE_DAYS })),
    );
    rows.forEach((row, index) => created.set(inputs[index]!.sourcedId, { id: row.id, created_at: row.created_at }));
  }
  const links = slice.map((person) => ({
    connection_id: connection.id,
    kind: 'user' as const,
    sourced_id: person.sourcedId,
    target_id: created.get(person.sourcedId)!.id,
    active: true,
    updated_at: now,
  }));
  for (let start = 0; start < links.length; start += 500) await tx.onerosterLinks.bulkCreate(links.slice(start, start + 500));
}

/**
 * Carries out the rest of a plan in the caller's transaction, once its new people exist
 * (`createPlannedPeople`, in transactions of their own), with the events the same changes made
 * through the API emit (student.suspended, faculty.updated, group.created, group.updated…), so
 * webhooks fire as they would. Writes are batched: a constant number of statements per kind of
 * change, plus one per changed person or group (docs/decisions/batched-writes.md).
 */
export async function applyPlan(tx: TenantTx, connection: OneRosterConnectionRow, plan: SyncPlan, created: CreatedPeople): Promise<void> {
  const events: NewEvent[] = [];
  const now = new Date();
  const idOf = (ref: PersonRef) => ('id' in ref ? ref.id : created.get(ref.sourcedId)!.id);

  const suspendIds: Record<PersonRole, string[]> = { student: [], faculty: [] };
  for (const update of plan.updatePeople) {
    const changes: Record<string, unknown> = {};
    const changed: string[] = [];
    if (update.full_name !== undefined) {
      changes.full_name = update.full_name;
      changed.push('full_name');
    }
    if (update.external_id !== undefined) {
      changes.external_id = update.external_id;
      changed.push(update.role === 'student' ? 'student_id' : 'faculty_id');
    }
    if (update.search_text !== undefined) changes.search_text = update.search_text;
    if (update.email !== undefined) Object.assign(changes, personalEmailColumns(tx, update.email));
    if (update.status === 'suspended' && Object.keys(changes).length === 0) {
      suspendIds[update.role].push(update.id);
      continue;
    }
    if (update.status !== undefined) {
      changes.status = update.status;
      changed.push('status');
    }
    if (Object.keys(changes).length === 0) continue;
    await tx.people.update({ ...changes, updated_at: now }, { id: update.id });
    const status = update.status ?? 'active';
    if (update.role === 'student') {
      if (changed.some((field) => field !== 'status')) events.push({ type: 'student.updated', data: { student_id: update.id, changed, status } });
      if (update.status) events.push({ type: update.status === 'suspended' ? 'student.suspended' : 'student.reactivated', data: { student_id: update.id } });
    } else if (changed.length > 0) {
      events.push({ type: 'faculty.updated', data: { faculty_id: update.id, changed, status } });
    }
  }
  // Suspensions alone (the common case of a large change): one statement per role.
  if (suspendIds.student.length > 0) {
    await tx.people.update({ status: 'suspended', updated_at: now }, { id: { [Op.in]: suspendIds.student } });
    for (const id of suspendIds.student) events.push({ type: 'student.suspended', data: { student_id: id } });
  }
  if (suspendIds.faculty.length > 0) {
    await tx.people.update({ status: 'suspended', updated_at: now }, { id: { [Op.in]: suspendIds.faculty } });
    for (const id of suspendIds.faculty) events.push({ type: 'faculty.updated', data: { faculty_id: id, changed: ['status'], status: 'suspended' } });
  }

  // Groups: created in one batch, then the changes of existing ones.
  const groupIds = new Map<string, string>();
  if (plan.createGroups.length > 0) {
    const rows = await tx.groups.bulkCreate(
      plan.createGroups.map((group) => {
        const id = newId('grp');
        groupIds.set(`new:${group.sourcedId}`, id);
        return { id, name: group.name, description: group.description, faculty_id: idOf(group.teacher) };
      }),
    );
    rows.forEach((row, index) => {
      const additions = plan.memberships.get(`new:${plan.createGroups[index]!.sourcedId}`);
      events.push({ type: 'group.created', data: { group_id: row.id, faculty_id: row.faculty_id, student_count: additions?.add.length ?? 0 } });
    });
  }
  const groupChanged = new Map<string, string[]>();
  for (const change of plan.changeGroups) {
    if (change.retire) continue;
    const values: Record<string, unknown> = {};
    const changed: string[] = [];
    if (change.name !== undefined) {
      values.name = change.name;
      changed.push('name');
    }
    if (change.description !== undefined) {
      values.description = change.description;
      changed.push('description');
    }
    if (change.teacher !== undefined) {
      values.faculty_id = idOf(change.teacher);
      changed.push('faculty_id');
    }
    await tx.groups.update({ ...values, updated_at: now }, { id: change.id });
    groupChanged.set(change.id, changed);
  }

  // Membership: removals per group, additions in one batch.
  const studentCreatedAt = new Map<string, Date>();
  const existingStudents = [...plan.memberships.values()].flatMap((change) =>
    change.add.filter((ref): ref is { id: string } => 'id' in ref).map((ref) => ref.id),
  );
  if (existingStudents.length > 0) {
    const rows = await tx.people.findAllPlain({ attributes: ['id', 'created_at'], where: { id: { [Op.in]: [...new Set(existingStudents)] } } });
    for (const row of rows) studentCreatedAt.set(row.id, row.created_at);
  }
  for (const { id, created_at } of created.values()) studentCreatedAt.set(id, created_at);
  const additions: Array<{ group_id: string; student_id: string; added_at: Date; student_created_at: Date }> = [];
  const touched = new Set<string>();
  for (const [groupKey, change] of plan.memberships) {
    const groupId = groupKey.startsWith('new:') ? groupIds.get(groupKey)! : groupKey;
    if (change.remove.length > 0) await tx.groupMembers.destroy({ group_id: groupId, student_id: { [Op.in]: change.remove } });
    for (const ref of change.add) {
      const studentId = idOf(ref);
      additions.push({ group_id: groupId, student_id: studentId, added_at: now, student_created_at: studentCreatedAt.get(studentId)! });
    }
    if (!groupKey.startsWith('new:')) {
      touched.add(groupId);
      groupChanged.set(groupId, [...(groupChanged.get(groupId) ?? []), 'members']);
    }
  }
  if (additions.length > 0) await tx.groupMembers.bulkCreate(additions);
  for (const groupId of touched) if (!groupChanged.has(groupId)) groupChanged.set(groupId, ['members']);
  if (groupChanged.size > 0) {
    const ids = [...groupChanged.keys()];
    const counts = (await tx.groupMembers.findAllPlain({ attributes: ['group_id'], where: { group_id: { [Op.in]: ids } } })).reduce(
      (map, row) => map.set(row.group_id, (map.get(row.group_id) ?? 0) + 1),
      new Map<string, number>(),
    );
    if (touched.size > 0) await tx.groups.update({ updated_at: now }, { id: { [Op.in]: [...touched] } });
    for (const [groupId, changed] of groupChanged) {
      if (changed.length > 0) events.push({ type: 'group.updated', data: { group_id: groupId, changed, student_count: counts.get(groupId) ?? 0 } });
    }
  }

  // Links: new ones in one batch, activity changes in one statement per value.
  const linkRows: Array<{ connection_id: string; kind: 'user' | 'class'; sourced_id: string; target_id: string; active: boolean; updated_at: Date }> = [];
  const activity = { user: { true: [] as string[], false: [] as string[] }, class: { true: [] as string[], false: [] as string[] } };
  const existing = new Set(
    (
      await tx.onerosterLinks.findAllPlain({
        attributes: ['kind', 'sourced_id'],
        where: { connection_id: connection.id },
      })
    ).map((row) => `${row.kind}:${row.sourced_id}`),
  );
  for (const [sourcedId, link] of plan.links.user) {
    // Written with the person (createPlannedPeople).
    if (created.has(sourcedId)) continue;
    if (existing.has(`user:${sourcedId}`)) activity.user[`${link.active}`].push(sourcedId);
    else
      linkRows.push({ connection_id: connection.id, kind: 'user', sourced_id: sourcedId, target_id: idOf(link.target), active: link.active, updated_at: now });
  }
  for (const [sourcedId, link] of plan.links.class) {
    if (existing.has(`class:${sourcedId}`)) activity.class[`${link.active}`].push(sourcedId);
    else
      linkRows.push({
        connection_id: connection.id,
        kind: 'class',
        sourced_id: sourcedId,
        target_id: link.target ?? groupIds.get(`new:${sourcedId}`)!,
        active: link.active,
        updated_at: now,
      });
  }
  for (let start = 0; start < linkRows.length; start += 500) await tx.onerosterLinks.bulkCreate(linkRows.slice(start, start + 500));
  for (const kind of ['user', 'class'] as const) {
    for (const active of [true, false]) {
      const ids = activity[kind][`${active}`];
      if (ids.length > 0) await tx.onerosterLinks.update({ active, updated_at: now }, { connection_id: connection.id, kind, sourced_id: { [Op.in]: ids } });
    }
  }

  await emitAll(tx, events);
}
