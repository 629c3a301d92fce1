import type { CountedGroup, GroupDetail, GroupMember } from '../commands/people/groups.js';
import { presentPersonRef } from './person.js';

/** The Group object; `faculty_id` is the owner's internal id. */
export function presentGroup({ group, studentCount }: CountedGroup) {
  return {
    id: group.id,
    name: group.name,
    description: group.description,
    faculty_id: group.faculty_id,
    student_count: studentCount,
    created_at: group.created_at.toISOString(),
    updated_at: group.updated_at.toISOString(),
  };
}

/** A member: the person reference (never a personal email) and when they joined. */
export function presentGroupMember({ student, addedAt }: GroupMember) {
  return { ...presentPersonRef(student), added_at: addedAt.toISOString() };
}

/** The single GET: the Group object plus its members and assigned exams. */
export function presentGroupDetail(detail: GroupDetail) {
  return { ...presentGroup(detail), members: detail.members.map(presentGroupMember), exams: detail.exams };
}
