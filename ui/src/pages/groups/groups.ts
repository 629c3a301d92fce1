import type { z } from 'zod';
import type { addMembersResponse, groupDetailSchema, groupMemberSchema, groupSchema } from '../../../../server/routes/groups/schema';

/** Groups' wire types: type-only imports of the server's schemas (z.input: the JSON the handler returns). */
export type Group = z.input<typeof groupSchema>;
export type GroupMember = z.input<typeof groupMemberSchema>;
export type GroupDetail = z.input<typeof groupDetailSchema>;
export type GroupMembersAdded = z.input<typeof addMembersResponse>;

/** The group forms' labels by API field: shown on the inputs, and in a refusal's words. */
export const GROUP_LABELS = { name: 'Name', description: 'Description', faculty_id: 'Owning teacher', student_ids: 'Students' } as const;

/** Splits pasted ids or emails on commas, spaces and new lines. */
export const splitRefs = (text: string) =>
  text
    .split(/[\s,;]+/)
    .map((ref) => ref.trim())
    .filter(Boolean);
