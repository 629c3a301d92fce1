import { Op, type WhereOptions } from 'sequelize';
import type { Tenant, TenantTx } from '../../db/tenant.js';
import type { Page, PageRequest } from '../../db/paging.js';
import { AppError, notFound } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { newId } from '../../ids.js';
import type { AlphaEnrollmentRow, EnrollmentStatus } from '../../models/alpha.js';
import { personRefWhere, resolveActiveFaculty, resolveStudents } from '../people/people.js';
import { findEnrollableCurriculum } from './curricula.js';

const DEFAULT_DAILY_TARGET_MINUTES = 30;

const emptyPage = <T>(request: PageRequest): Page<T> => ({ items: [], page: request.page, limit: request.limit, total: 0, totalPages: 0 });

export async function findEnrollment(tenant: Tenant, id: string): Promise<AlphaEnrollmentRow> {
  const enrollment = await tenant.alphaEnrollments.findById(id);
  if (!enrollment) throw notFound('enrollment');
  return enrollment;
}

export interface EnrollmentFilter extends PageRequest {
  student_id?: string | undefined;
  curriculum_id?: string | undefined;
  status?: EnrollmentStatus | undefined;
}

/** Oldest first. An unknown `student_id` (id or login email) gives an empty page, as any filter. */
export async function listEnrollments(tenant: Tenant, filter: EnrollmentFilter): Promise<Page<AlphaEnrollmentRow>> {
  const where: WhereOptions<AlphaEnrollmentRow>[] = [];
  if (filter.student_id !== undefined) {
    const student = await tenant.people.findOne({ attributes: ['id'], where: personRefWhere('student', filter.student_id) });
    if (!student) return emptyPage(filter);
    where.push({ student_id: student.id });
  }
  if (filter.curriculum_id !== undefined) where.push({ curriculum_id: filter.curriculum_id });
  if (filter.status !== undefined) where.push({ status: filter.status });
  return tenant.alphaEnrollments.page(
    {
      where: where.length > 0 ? { [Op.and]: where } : undefined,
      order: [
        ['created_at', 'ASC'],
        ['id', 'ASC'],
      ],
    },
    filter,
  );
}

/** A guide: null clears it; otherwise an active faculty member of this institution, else `422 invalid_faculty`. */
async function resolveGuide(tx: TenantTx, ref: string | null): Promise<string | null> {
  if (ref === null) return null;
  return (await resolveActiveFaculty(tx, ref)).id;
}

export interface NewEnrollments {
  curriculum_id: string;
  student_ids: readonly string[];
  daily_target_minutes?: number | undefined;
  guide_id?: string | null | undefined;
}

export interface EnrollmentsCreated {
  created: AlphaEnrollmentRow[];
  /** Refs as sent that are not students of this institution. */
  rejected: string[];
  /** Internal ids of valid students already enrolled in the curriculum (any status), skipped. */
  alreadyEnrolled: string[];
}

/**
 * Enrolls the valid students who are not enrolled in the curriculum yet, each with its
 * `alpha.enrollment.created`, in one transaction. Checks, in order: the curriculum (visible and
 * published, else `422` at `curriculum_id`), the guide (`invalid_faculty`), the students (the one
 * `student_ids` rule). Everyone already enrolled is not an error: `items` is then empty.
 */
export function createEnrollments(tenant: Tenant, input: NewEnrollments): Promise<EnrollmentsCreated> {
  return tenant.inTransaction(async (tx) => {
    const curriculum = await findEnrollableCurriculum(tx, input.curriculum_id);
    const guideId = await resolveGuide(tx, input.guide_id ?? null);
    const { students, rejected } = await resolveStudents(tx, input.student_ids);
    const existing = await tx.alphaEnrollments.findAll({
      attributes: ['student_id'],
      where: { curriculum_id: curriculum.id, student_id: { [Op.in]: students.map((student) => student.id) } },
    });
    const enrolled = new Set(existing.map((row) => row.student_id));
    const created: AlphaEnrollmentRow[] = [];
    const alreadyEnrolled: string[] = [];
    for (const student of students) {
      if (enrolled.has(student.id)) {
        alreadyEnrolled.push(student.id);
        continue;
      }
      const enrollment = await tx.alphaEnrollments.create({
        id: newId('enr'),
        curriculum_id: curriculum.id,
        student_id: student.id,
        guide_id: guideId,
        daily_target_minutes: input.daily_target_minutes ?? DEFAULT_DAILY_TARGET_MINUTES,
        status: 'active',
      });
      await emit(tx, 'alpha.enrollment.created', { enrollment_id: enrollment.id, student_id: student.id, curriculum_id: curriculum.id });
      created.push(enrollment);
    }
    return { created, rejected, alreadyEnrolled };
  });
}

export interface EnrollmentPatch {
  guide_id?: string | null | undefined;
  daily_target_minutes?: number | undefined;
  status?: EnrollmentStatus | undefined;
}

/**
 * PATCH. Transitions: active ↔ paused, active|paused → completed. A completed enrollment is final:
 * a PATCH that would change anything of it is `409 conflict`; one that restates it is a no-op.
 * Checks: `404`, then the guide (`422 invalid_faculty`), then the state (`409`). No event: the
 * catalog has none for enrollment changes.
 */
export function updateEnrollment(tenant: Tenant, id: string, patch: EnrollmentPatch): Promise<AlphaEnrollmentRow> {
  return tenant.inTransaction(async (tx) => {
    const enrollment = await findEnrollment(tx, id);
    const changes: Partial<Pick<AlphaEnrollmentRow, 'guide_id' | 'daily_target_minutes' | 'status'>> = {};
    if (patch.guide_id !== undefined) {
      const guideId = await resolveGuide(tx, patch.guide_id);
      if (guideId !== enrollment.guide_id) changes.guide_id = guideId;
    }
    if (patch.daily_target_minutes !== undefined && patch.daily_target_minutes !== enrollment.daily_target_minutes) {
      changes.daily_target_minutes = patch.daily_target_minutes;
    }
    if (patch.status !== undefined && patch.status !== enrollment.status) changes.status = patch.status;
    if (Object.keys(changes).length === 0) return enrollment;
    if (enrollment.status === 'completed') {
      throw new AppError('conflict', 'This enrollment is completed; a completed enrollment cannot change.');
    }
    await enrollment.update(changes, { transaction: tx.tx });
    return enrollment;
  });
}
