import type { PersonRecord } from '../models/person.js';

/** A student as the API shows one. The personal email is never named here, so it cannot leak. */
export function presentStudent(row: PersonRecord) {
  return {
    id: row.id,
    login_email: row.login_email,
    full_name: row.full_name,
    student_id: row.external_id,
    status: row.status,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function presentFaculty(row: PersonRecord) {
  return {
    id: row.id,
    login_email: row.login_email,
    full_name: row.full_name,
    faculty_id: row.external_id,
    status: row.status,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** A person inside another resource (group members, guardians' student). */
export function presentPersonRef(row: PersonRecord) {
  return { id: row.id, login_email: row.login_email, full_name: row.full_name, status: row.status };
}
