import { listFacultyExams, listStudentExams } from '../../commands/exams.js';
import { createPerson, findPerson, listPeople, setStudentStatus, updatePerson } from '../../commands/people.js';
import { bulkCreateStudents, createStudent } from '../../commands/students.js';
import { z } from '../../http/zod.js';
import { presentExam, presentStudentExam } from '../../presenters/exam.js';
import { presentFaculty, presentStudent } from '../../presenters/person.js';
import { examPage, examPageQuery, studentExamPage } from '../../routes/exams/schema.js';
import {
  createFacultyBody,
  facultyPage,
  facultyParams,
  facultySchema,
  listFacultyQuery,
  updateFacultyBody,
} from '../../routes/faculty/schema.js';
import {
  bulkStudentsBody,
  bulkStudentsResponse,
  createStudentBody,
  listStudentsQuery,
  studentPage,
  studentParams,
  studentSchema,
  updateStudentBody,
} from '../../routes/students/schema.js';
import { dataRoute, institutionId } from './route.js';

const institutionParams = z.strictObject({ id: institutionId });
const studentPathParams = z.strictObject({ id: institutionId, studentId: studentParams.shape.id });
const facultyPathParams = z.strictObject({ id: institutionId, facultyId: facultyParams.shape.id });

/** Students and faculty in the portal: the /v1 operations' schemas, commands, events and presenters. */
export const peopleRoutes = [
  dataRoute({
    method: 'get',
    path: '/institutions/{id}/students',
    summary: 'List students (the filters of GET /v1/students)',
    params: institutionParams,
    query: listStudentsQuery,
    response: studentPage,
    handler: async ({ access, query }) => {
      const page = await listPeople(access.tenant, 'student', { ...query, external_id: query.student_id });
      return { ...page, items: page.items.map(presentStudent) };
    },
  }),
  dataRoute({
    method: 'post',
    path: '/institutions/{id}/students',
    summary: 'Provision a student: login email, license and `student.created`, as POST /v1/students',
    params: institutionParams,
    body: createStudentBody,
    response: studentSchema,
    handler: async ({ access, body }) => presentStudent(await createStudent(access.tenant, body)),
  }),
  dataRoute({
    method: 'post',
    path: '/institutions/{id}/students/bulk',
    summary: 'Provision up to 200 students in one transaction; each item succeeds or fails on its own',
    params: institutionParams,
    body: bulkStudentsBody,
    response: bulkStudentsResponse,
    handler: async ({ access, body }) => bulkCreateStudents(access.tenant, body.students),
  }),
  dataRoute({
    method: 'get',
    path: '/institutions/{id}/students/{studentId}',
    summary: 'Read a student (id or login email)',
    params: studentPathParams,
    response: studentSchema,
    handler: async ({ access, params }) => presentStudent(await findPerson(access.tenant, 'student', params.studentId)),
  }),
  dataRoute({
    method: 'patch',
    path: '/institutions/{id}/students/{studentId}',
    summary: 'Update a student; the personal email is accepted, never returned',
    params: studentPathParams,
    body: updateStudentBody,
    response: studentSchema,
    handler: async ({ access, params, body }) =>
      presentStudent(
        await updatePerson(access.tenant, 'student', params.studentId, {
          full_name: body.full_name,
          external_id: body.student_id,
          status: body.status,
          personal_email: body.personal_email,
        }),
      ),
  }),
  dataRoute({
    method: 'post',
    path: '/institutions/{id}/students/{studentId}/suspend',
    summary: 'Suspend a student (idempotent)',
    params: studentPathParams,
    response: studentSchema,
    handler: async ({ access, params }) => presentStudent(await setStudentStatus(access.tenant, params.studentId, 'suspended')),
  }),
  dataRoute({
    method: 'post',
    path: '/institutions/{id}/students/{studentId}/reactivate',
    summary: 'Reactivate a student (idempotent)',
    params: studentPathParams,
    response: studentSchema,
    handler: async ({ access, params }) => presentStudent(await setStudentStatus(access.tenant, params.studentId, 'active')),
  }),
  dataRoute({
    method: 'get',
    path: '/institutions/{id}/students/{studentId}/exams',
    summary: "A student's assigned exams with their submission state",
    params: studentPathParams,
    query: examPageQuery,
    response: studentExamPage,
    handler: async ({ access, params, query }) => {
      const page = await listStudentExams(access.tenant, params.studentId, query);
      return { ...page, items: page.items.map(presentStudentExam) };
    },
  }),

  dataRoute({
    method: 'get',
    path: '/institutions/{id}/faculty',
    summary: 'List faculty (the filters of GET /v1/faculty)',
    params: institutionParams,
    query: listFacultyQuery,
    response: facultyPage,
    handler: async ({ access, query }) => {
      const page = await listPeople(access.tenant, 'faculty', query);
      return { ...page, items: page.items.map(presentFaculty) };
    },
  }),
  dataRoute({
    method: 'post',
    path: '/institutions/{id}/faculty',
    summary: 'Provision a faculty member: login email, license and `faculty.created`',
    params: institutionParams,
    body: createFacultyBody,
    response: facultySchema,
    handler: async ({ access, body }) =>
      presentFaculty(
        await access.tenant.inTransaction((tx) =>
          createPerson(tx, 'faculty', { full_name: body.full_name, external_id: body.faculty_id, license_days: body.license_days }),
        ),
      ),
  }),
  dataRoute({
    method: 'get',
    path: '/institutions/{id}/faculty/{facultyId}',
    summary: 'Read a faculty member (id or login email)',
    params: facultyPathParams,
    response: facultySchema,
    handler: async ({ access, params }) => presentFaculty(await findPerson(access.tenant, 'faculty', params.facultyId)),
  }),
  dataRoute({
    method: 'patch',
    path: '/institutions/{id}/faculty/{facultyId}',
    summary: 'Update a faculty member; `status` is the only way to suspend or reactivate one',
    params: facultyPathParams,
    body: updateFacultyBody,
    response: facultySchema,
    handler: async ({ access, params, body }) =>
      presentFaculty(
        await updatePerson(access.tenant, 'faculty', params.facultyId, { full_name: body.full_name, external_id: body.faculty_id, status: body.status }),
      ),
  }),
  dataRoute({
    method: 'get',
    path: '/institutions/{id}/faculty/{facultyId}/exams',
    summary: 'The exams a teacher owns, drafts included',
    params: facultyPathParams,
    query: examPageQuery,
    response: examPage,
    handler: async ({ access, params, query }) => {
      const page = await listFacultyExams(access.tenant, params.facultyId, query);
      return { ...page, items: page.items.map(presentExam) };
    },
  }),
];
