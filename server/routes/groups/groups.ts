import { addGroupMembers, createGroup, deleteGroup, getGroupDetail, listGroups, removeGroupMember, updateGroup } from '../../commands/people/groups.js';
import { defineRoute } from '../../http/route.js';
import { presentGroup, presentGroupDetail } from '../../presenters/group.js';
import {
  addMembersBody,
  addMembersResponse,
  createGroupBody,
  deleteGroupResponse,
  groupDetailSchema,
  groupMemberParams,
  groupPage,
  groupParams,
  groupSchema,
  groupWriteResponse,
  listGroupsQuery,
  updateGroupBody,
} from './schema.js';

export const groupsRoutes = [
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/groups',
    operationId: 'listGroups',
    summary: 'List groups',
    tag: 'Groups',
    scope: 'groups:read',
    query: listGroupsQuery,
    response: groupPage,
    handler: async ({ tenant, query }) => {
      const page = await listGroups(tenant, query);
      return { ...page, items: page.items.map(presentGroup) };
    },
  }),
  defineRoute({
    caller: 'key',
    method: 'post',
    path: '/groups',
    operationId: 'createGroup',
    summary: 'Create a group',
    description: 'Needs an active owning teacher. `student_ids` that are not students of this institution are skipped and listed in `rejected_student_ids`.',
    tag: 'Groups',
    scope: 'groups:write',
    body: createGroupBody,
    response: groupWriteResponse,
    errors: ['no_owner', 'invalid_faculty', 'no_valid_students'],
    handler: async ({ tenant, body }) => {
      const result = await createGroup(tenant, body);
      return { ...presentGroup(result), rejected_student_ids: result.rejected };
    },
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/groups/{id}',
    operationId: 'getGroup',
    summary: 'Read a group with its members and exams',
    tag: 'Groups',
    scope: 'groups:read',
    params: groupParams,
    response: groupDetailSchema,
    errors: ['not_found'],
    handler: async ({ tenant, params }) => presentGroupDetail(await getGroupDetail(tenant, params.id)),
  }),
  defineRoute({
    caller: 'key',
    method: 'patch',
    path: '/groups/{id}',
    operationId: 'updateGroup',
    summary: 'Update a group',
    description: '`student_ids` replaces the whole membership (`[]` empties the group); members who stay keep their `added_at`.',
    tag: 'Groups',
    scope: 'groups:write',
    params: groupParams,
    body: updateGroupBody,
    response: groupWriteResponse,
    errors: ['not_found', 'no_owner', 'invalid_faculty', 'no_valid_students'],
    handler: async ({ tenant, params, body }) => {
      const result = await updateGroup(tenant, params.id, body);
      return { ...presentGroup(result), rejected_student_ids: result.rejected };
    },
  }),
  defineRoute({
    caller: 'key',
    method: 'delete',
    path: '/groups/{id}',
    operationId: 'deleteGroup',
    summary: 'Delete a group and its memberships',
    description: 'The students themselves are not touched.',
    tag: 'Groups',
    scope: 'groups:write',
    params: groupParams,
    response: deleteGroupResponse,
    errors: ['not_found'],
    handler: async ({ tenant, params }) => deleteGroup(tenant, params.id),
  }),
  defineRoute({
    caller: 'key',
    method: 'post',
    path: '/groups/{id}/members',
    operationId: 'addGroupMembers',
    summary: 'Add students to a group',
    description: 'Adds the valid students who are not members yet. When every valid one already is: `409 already_added`.',
    tag: 'Groups',
    scope: 'groups:write',
    params: groupParams,
    body: addMembersBody,
    response: addMembersResponse,
    errors: ['not_found', 'no_valid_students', 'already_added'],
    handler: async ({ tenant, params, body }) => {
      const result = await addGroupMembers(tenant, params.id, body.student_ids);
      return { ...presentGroup(result), added: result.added, rejected_student_ids: result.rejected };
    },
  }),
  defineRoute({
    caller: 'key',
    method: 'delete',
    path: '/groups/{id}/members/{studentId}',
    operationId: 'removeGroupMember',
    summary: 'Remove one student from a group',
    description: '`studentId` is the student id or login email. Not a student of this institution, or not a member: `404 not_found`.',
    tag: 'Groups',
    scope: 'groups:write',
    params: groupMemberParams,
    response: groupSchema,
    errors: ['not_found'],
    handler: async ({ tenant, params }) => presentGroup(await removeGroupMember(tenant, params.id, params.studentId)),
  }),
];
