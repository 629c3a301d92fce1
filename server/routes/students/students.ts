import { bulkCreateStudents, createStudent } from '../../commands/people/students.js';
import { listPeople, peopleSort } from '../../commands/people/list.js';
import { findPerson, setStudentStatus, updatePerson } from '../../commands/people/people.js';
import { listStudentGuardians } from '../../commands/people/guardians.js';
import { listStudentExams } from '../../commands/exams/lists.js';
import { defineRoute } from '../../http/route.js';
import { presentStudentExam } from '../../presenters/exam.js';
import { presentGuardianLink } from '../../presenters/guardian.js';
import { presentStudent } from '../../presenters/person.js';
import { examPageQuery } from '../exams/schema.js';
import { studentExamPage } from '../exams/schema-results.js';
import { guardianList } from '../guardians/schema.js';
import {
  bulkStudentsBody,
  bulkStudentsResponse,
  createStudentBody,
  listStudentsQuery,
  studentPage,
  studentParams,
  studentSchema,
  updateStudentBody,
} from './schema.js';

export const studentRoutes = [
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/students',
    operationId: 'listStudents',
    summary: 'List students',
    tag: 'Students',
    scope: 'students:read',
    query: listStudentsQuery,
    response: studentPage,
    handler: async ({ tenant, query }) => {
      const page = await listPeople(tenant, 'student', { ...query, external_id: query.student_id, sort: peopleSort(query.sort) });
      return { ...page, items: page.items.map(presentStudent) };
    },
  }),
  defineRoute({
    caller: 'key',
    method: 'post',
    path: '/students',
    operationId: 'createStudent',
    summary: 'Provision a student',
    description: 'Generates the login email and grants a license. Not idempotent: sending it twice makes two students.',
    tag: 'Students',
    scope: 'students:write',
    body: createStudentBody,
    response: studentSchema,
    errors: ['conflict'],
    handler: async ({ tenant, body }) => presentStudent(await createStudent(tenant, body)),
  }),
  defineRoute({
    caller: 'key',
    method: 'post',
    path: '/students/bulk',
    operationId: 'bulkCreateStudents',
    summary: 'Provision up to 200 students',
    description: 'One transaction; each item succeeds or fails on its own: `results[i]` has `id` and `login_email`, or `error` and `message`.',
    tag: 'Students',
    scope: 'students:write',
    body: bulkStudentsBody,
    response: bulkStudentsResponse,
    handler: async ({ tenant, body }) => bulkCreateStudents(tenant, body.students),
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/students/{id}',
    operationId: 'getStudent',
    summary: 'Read a student',
    tag: 'Students',
    scope: 'students:read',
    params: studentParams,
    response: studentSchema,
    errors: ['not_found'],
    handler: async ({ tenant, params }) => presentStudent(await findPerson(tenant, 'student', params.id)),
  }),
  defineRoute({
    caller: 'key',
    method: 'patch',
    path: '/students/{id}',
    operationId: 'updateStudent',
    summary: 'Update a student',
    tag: 'Students',
    scope: 'students:write',
    params: studentParams,
    body: updateStudentBody,
    response: studentSchema,
    errors: ['not_found', 'conflict'],
    handler: async ({ tenant, params, body }) =>
      presentStudent(
        await updatePerson(tenant, 'student', params.id, {
          full_name: body.full_name,
          external_id: body.student_id,
          status: body.status,
          personal_email: body.personal_email,
        }),
      ),
  }),
  defineRoute({
    caller: 'key',
    method: 'post',
    path: '/students/{id}/suspend',
    operationId: 'suspendStudent',
    summary: 'Suspend a student (sign-in blocked)',
    description: 'Idempotent: suspending a suspended student answers 200 and changes nothing.',
    tag: 'Students',
    scope: 'students:write',
    params: studentParams,
    response: studentSchema,
    errors: ['not_found'],
    handler: async ({ tenant, params }) => presentStudent(await setStudentStatus(tenant, params.id, 'suspended')),
  }),
  defineRoute({
    caller: 'key',
    method: 'post',
    path: '/students/{id}/reactivate',
    operationId: 'reactivateStudent',
    summary: 'Reactivate a suspended student',
    description: 'Idempotent: reactivating an active student answers 200 and changes nothing.',
    tag: 'Students',
    scope: 'students:write',
    params: studentParams,
    response: studentSchema,
    errors: ['not_found'],
    handler: async ({ tenant, params }) => presentStudent(await setStudentStatus(tenant, params.id, 'active')),
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/students/{id}/guardians',
    operationId: 'listStudentGuardians',
    summary: "List a student's guardian links",
    tag: 'Students',
    scope: 'guardians:read',
    params: studentParams,
    response: guardianList,
    errors: ['not_found'],
    handler: async ({ tenant, params }) => ({ items: (await listStudentGuardians(tenant, params.id)).map(presentGuardianLink) }),
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/students/{id}/exams',
    operationId: 'listStudentExams',
    summary: "List a student's assigned exams with their submission state",
    description:
      "Published and closed exams assigned to the student's groups (drafts are not listed), oldest first, each with the student's latest submission that is not voided, or null.",
    tag: 'Students',
    scope: 'exams:read',
    params: studentParams,
    query: examPageQuery,
    response: studentExamPage,
    errors: ['not_found'],
    handler: async ({ tenant, params, query }) => {
      const page = await listStudentExams(tenant, params.id, query);
      return { ...page, items: page.items.map(presentStudentExam) };
    },
  }),
];
