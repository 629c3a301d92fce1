import { call, portal } from '../../api/portal';
import { ApiError } from '../../api/errors';
import type { GroupMembersAdded } from '../groups/groups';
import { ofAction, unchanged, type ImportKind, type PlannedRow, type PlanState, type RowAction, type RowOutcome } from './importKind';
import { EMPTY_CONTEXT, readStudents, resolveStudent } from './roster';

/**
 * A member row: the value names a student by the school's student number, their login e-mail or
 * their appliance id, resolved against the roster read before the preview; one that names nobody
 * is a problem there. The ids resolved are what `POST /groups/{id}/members` is sent.
 */
function planMember(values: Record<string, string>, line: number, state: PlanState): Omit<PlannedRow, 'line'> {
  const row = { values, action: 'create' as RowAction, target: null, changes: [], checking: false };
  const value = values.student ?? '';
  if (!value) return { ...row, problem: 'The student is missing.' };
  // Values and the students they name are remembered apart: an id is both.
  const sameValue = state.seen.get(`value ${value}`);
  if (sameValue !== undefined) return { ...row, problem: `${value} is also on line ${sameValue}.` };
  state.seen.set(`value ${value}`, line);
  const student = resolveStudent(state.index, value);
  if (!student) return { ...row, problem: `No student has the student number, login e-mail or id "${value}".` };
  const sameStudent = state.seen.get(`student ${student.id}`);
  if (sameStudent !== undefined) return { ...row, problem: `${value} is ${student.full_name}, who is also on line ${sameStudent}.` };
  state.seen.set(`student ${student.id}`, line);
  return { ...row, problem: null, target: student, action: state.index.members.has(student.id) ? 'unchanged' : 'create' };
}

/** Members of one group, by the school's student number, login e-mail or id. */
export function memberImport(groupId: string): ImportKind {
  return {
    one: 'member',
    many: 'members',
    verb: 'added',
    unchangedOne: 'already a member',
    unchanged: 'already members',
    updatable: false,
    fields: [
      {
        key: 'student',
        label: 'Student (student number, login e-mail or id)',
        required: true,
        titles: ['student', 'student number', 'student id', 'student_id', 'sis id', 'number', 'login email', 'email', 'student email', 'id', 'matricule'],
      },
    ],
    load: async (institutionId) => {
      const [people, members] = await Promise.all([readStudents(institutionId), readStudents(institutionId, { group_id: groupId })]);
      return { ...EMPTY_CONTEXT, people, members: members.map((member) => member.id) };
    },
    plan: planMember,
    async send(institutionId, rows) {
      const adding = ofAction(rows, 'create');
      const outcome = (row: PlannedRow, result: RowOutcome['result'], detail = row.target!.login_email): RowOutcome => ({
        line: row.line,
        result,
        id: result === 'rejected' ? null : row.target!.id,
        detail,
      });
      const gone = 'The student no longer exists.';
      let answer: GroupMembersAdded | null = null;
      try {
        if (adding.length > 0) {
          answer = await call(
            portal.POST('/institutions/{institution}/groups/{id}/members', {
              params: { path: { institution: institutionId, id: groupId } },
              body: { student_ids: adding.map((row) => row.target!.id) },
            }),
          );
        }
      } catch (error) {
        // Every one already in (added since the preview) or none still there: each row says which.
        if (!(error instanceof ApiError) || !['already_added', 'no_valid_students'].includes(error.code)) throw error;
        const result = error.code === 'already_added' ? 'unchanged' : 'rejected';
        return [...adding.map((row) => outcome(row, result, result === 'rejected' ? gone : undefined)), ...ofAction(rows, 'unchanged').map(unchanged)];
      }
      const added = new Set(answer?.added);
      const rejected = new Set(answer?.rejected_student_ids);
      return [
        ...adding.map((row) =>
          added.has(row.target!.id) ? outcome(row, 'created') : rejected.has(row.target!.id) ? outcome(row, 'rejected', gone) : outcome(row, 'unchanged'),
        ),
        ...ofAction(rows, 'unchanged').map(unchanged),
      ];
    },
  };
}
