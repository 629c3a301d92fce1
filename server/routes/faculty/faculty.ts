import { listFacultyExams } from '../../commands/exams/lists.js';
import { listPeople, peopleSort } from '../../commands/people/list.js';
import { createPerson, findPerson, updatePerson } from '../../commands/people/people.js';
import { defineRoute } from '../../http/route.js';
import { presentExam } from '../../presenters/exam.js';
import { presentFaculty } from '../../presenters/person.js';
import { examPage, examPageQuery } from '../exams/schema.js';
import { createFacultyBody, facultyPage, facultyParams, facultySchema, listFacultyQuery, updateFacultyBody } from './schema.js';

export const facultyRoutes = [
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/faculty',
    operationId: 'listFaculty',
    summary: 'List faculty members',
    tag: 'Faculty',
    scope: 'faculty:read',
    query: listFacultyQuery,
    response: facultyPage,
    handler: async ({ tenant, query }) => {
      const page = await listPeople(tenant, 'faculty', { ...query, sort: peopleSort(query.sort) });
      return { ...page, items: page.items.map(presentFaculty) };
    },
  }),
  defineRoute({
    caller: 'key',
    method: 'post',
    path: '/faculty',
    operationId: 'createFaculty',
    summary: 'Provision a faculty member',
    description: 'Generates the login email (used as `faculty_id` when creating groups and exams) and grants a license.',
    tag: 'Faculty',
    scope: 'faculty:write',
    body: createFacultyBody,
    response: facultySchema,
    errors: ['conflict'],
    handler: async ({ tenant, body }) =>
      presentFaculty(
        await tenant.inTransaction((tx) =>
          createPerson(tx, 'faculty', { full_name: body.full_name, external_id: body.faculty_id, license_days: body.license_days }),
        ),
      ),
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/faculty/{id}',
    operationId: 'getFaculty',
    summary: 'Read a faculty member',
    tag: 'Faculty',
    scope: 'faculty:read',
    params: facultyParams,
    response: facultySchema,
    errors: ['not_found'],
    handler: async ({ tenant, params }) => presentFaculty(await findPerson(tenant, 'faculty', params.id)),
  }),
  defineRoute({
    caller: 'key',
    method: 'patch',
    path: '/faculty/{id}',
    operationId: 'updateFaculty',
    summary: 'Update a faculty member (status included)',
    tag: 'Faculty',
    scope: 'faculty:write',
    params: facultyParams,
    body: updateFacultyBody,
    response: facultySchema,
    errors: ['not_found', 'conflict'],
    handler: async ({ tenant, params, body }) =>
      presentFaculty(await updatePerson(tenant, 'faculty', params.id, { full_name: body.full_name, external_id: body.faculty_id, status: body.status })),
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/faculty/{id}/exams',
    operationId: 'listFacultyExams',
    summary: 'List the exams a teacher owns',
    description: 'Every state, drafts included, oldest first.',
    tag: 'Faculty',
    scope: 'exams:read',
    params: facultyParams,
    query: examPageQuery,
    response: examPage,
    errors: ['not_found'],
    handler: async ({ tenant, params, query }) => {
      const page = await listFacultyExams(tenant, params.id, query);
      return { ...page, items: page.items.map(presentExam) };
    },
  }),
];
