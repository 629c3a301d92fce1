import { addGroupMembers, createGroup, deleteGroup, getGroupDetail, listGroups, removeGroupMember, updateGroup } from '../../commands/groups.js';
import { z } from '../../http/zod.js';
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
} from '../../routes/groups/schema.js';
import { dataRoute, institutionId } from './route.js';

const institutionParams = z.strictObject({ id: institutionId });
const groupPathParams = z.strictObject({ id: institutionId, groupId: groupParams.shape.id });
const memberPathParams = groupPathParams.extend({ studentId: groupMemberParams.shape.studentId });

/** Groups (classes) in the portal: the /v1 operations' schemas, commands, events and presenters. */
export const groupRoutes = [
  dataRoute({
    method: 'get',
    path: '/institutions/{id}/groups',
    summary: 'List groups (`q` searches the name, `faculty_id` the owner)',
    params: institutionParams,
    query: listGroupsQuery,
    response: groupPage,
    handler: async ({ access, query }) => {
      const page = await listGroups(access.tenant, query);
      return { ...page, items: page.items.map(presentGroup) };
    },
  }),
  dataRoute({
    method: 'post',
    path: '/institutions/{id}/groups',
    summary: 'Create a group with an active owning teacher and its first members',
    params: institutionParams,
    body: createGroupBody,
    response: groupWriteResponse,
    handler: async ({ access, body }) => {
      const result = await createGroup(access.tenant, body);
      return { ...presentGroup(result), rejected_student_ids: result.rejected };
    },
  }),
  dataRoute({
    method: 'get',
    path: '/institutions/{id}/groups/{groupId}',
    summary: 'Read a group with its members and exams',
    params: groupPathParams,
    response: groupDetailSchema,
    handler: async ({ access, params }) => presentGroupDetail(await getGroupDetail(access.tenant, params.groupId)),
  }),
  dataRoute({
    method: 'patch',
    path: '/institutions/{id}/groups/{groupId}',
    summary: 'Update a group; `student_ids` replaces the membership',
    params: groupPathParams,
    body: updateGroupBody,
    response: groupWriteResponse,
    handler: async ({ access, params, body }) => {
      const result = await updateGroup(access.tenant, params.groupId, body);
      return { ...presentGroup(result), rejected_student_ids: result.rejected };
    },
  }),
  dataRoute({
    method: 'delete',
    path: '/institutions/{id}/groups/{groupId}',
    summary: 'Delete a group and its memberships (the students stay)',
    params: groupPathParams,
    response: deleteGroupResponse,
    handler: async ({ access, params }) => deleteGroup(access.tenant, params.groupId),
  }),
  dataRoute({
    method: 'post',
    path: '/institutions/{id}/groups/{groupId}/members',
    summary: 'Add students to a group (all already members: 409 already_added)',
    params: groupPathParams,
    body: addMembersBody,
    response: addMembersResponse,
    handler: async ({ access, params, body }) => {
      const result = await addGroupMembers(access.tenant, params.groupId, body.student_ids);
      return { ...presentGroup(result), added: result.added, rejected_student_ids: result.rejected };
    },
  }),
  dataRoute({
    method: 'delete',
    path: '/institutions/{id}/groups/{groupId}/members/{studentId}',
    summary: 'Remove one student from a group',
    params: memberPathParams,
    response: groupSchema,
    handler: async ({ access, params }) => presentGroup(await removeGroupMember(access.tenant, params.groupId, params.studentId)),
  }),
];
