import type { MAX_STUDENT_IDS } from '../../../../server/routes/groups/schema';
import { call, portal } from '../../api/portal';
import { ApiError } from '../../api/errors';
import { GROUP_LABELS } from '../groups/groups';
import { refusalInWords } from './refusals';
import { groupKey, type GroupRef, type ImportIndex } from './roster';
import type { ImportField } from './table';

/**
 * A student import's class or homeroom column (docs/install.md#importing-people-from-a-spreadsheet):
 * each student with a value joins the group of that name, created when the institution has none,
 * so one SIS export gives both the students and their classes. Placing adds; it never takes a
 * student out of another group.
 */

export const CLASS = 'class';

export const classField: ImportField = {
  key: CLASS,
  label: 'Class',
  description: 'Optional; the group to join',
  titleOnly: true,
  titles: ['class', 'class name', 'homeroom', 'home room', 'form', 'form group', 'tutor group', 'section', 'classe', 'clase', 'grupo', 'klasse'],
};

/** Students per request that adds members (a group's `student_ids` limit); the type pins it to the server's. */
export const MAX_MEMBERS: typeof MAX_STUDENT_IDS = 1000;

/** What is wrong with a row's class, in words, or null. A class shared by two groups' names could be either. */
export function classProblem(name: string, index: ImportIndex): string | null {
  if (name.length > 200) return 'The class name is longer than 200 characters.';
  const groups = index.groupsByName.get(groupKey(name)) ?? [];
  return groups.length > 1 ? `${groups.length} groups are named "${name}": rename one so the class says which.` : null;
}

/** One class of the file: the group it names (null: to be created) and the lines placed in it. */
export interface PlannedClass {
  key: string;
  /** As the file first spells it: the name a new group gets. */
  name: string;
  group: GroupRef | null;
  lines: number[];
}

/** The classes of the rows that will be imported, in the order the file first names them. */
export function planClasses(
  rows: ReadonlyArray<{ line: number; values: Readonly<Record<string, string>>; problem: string | null }>,
  index: ImportIndex,
): PlannedClass[] {
  const classes = new Map<string, PlannedClass>();
  for (const row of rows) {
    const name = row.values[CLASS]?.trim() ?? '';
    if (row.problem || !name) continue;
    const key = groupKey(name);
    const planned = classes.get(key) ?? { key, name, group: index.groupsByName.get(key)?.[0] ?? null, lines: [] };
    planned.lines.push(row.line);
    classes.set(key, planned);
  }
  return [...classes.values()];
}

/** One request of the placing: students of one class, written by the import, at most MAX_MEMBERS. */
export interface PlacementStep {
  key: string;
  name: string;
  /** The existing group; null when the import creates it (the first step of its class does). */
  groupId: string | null;
  lines: number[];
  studentIds: string[];
}

/** What became of one line's class, in words for the result file. */
export interface ClassOutcome {
  line: number;
  placed: 'placed' | 'already' | 'not placed';
  words: string;
}

/**
 * The requests that place the students the import wrote (created, updated or unchanged: every
 * outcome with an id) in their classes. Without an owner a new group cannot be made, so its
 * students are left out, each with the reason.
 */
export function placementSteps(
  classes: readonly PlannedClass[],
  outcomes: ReadonlyArray<{ line: number; id: string | null }>,
  ownerId: string | null,
): { steps: PlacementStep[]; skipped: ClassOutcome[] } {
  const idOf = new Map(outcomes.flatMap((outcome) => (outcome.id ? [[outcome.line, outcome.id] as const] : [])));
  const steps: PlacementStep[] = [];
  const skipped: ClassOutcome[] = [];
  for (const planned of classes) {
    const lines = planned.lines.filter((line) => idOf.has(line));
    if (!planned.group && !ownerId) {
      skipped.push(
        ...lines.map((line) => ({ line, placed: 'not placed' as const, words: `not placed in ${planned.name}: no faculty member to own a new group` })),
      );
      continue;
    }
    for (let start = 0; start < lines.length; start += MAX_MEMBERS) {
      const chunk = lines.slice(start, start + MAX_MEMBERS);
      steps.push({ key: planned.key, name: planned.name, groupId: planned.group?.id ?? null, lines: chunk, studentIds: chunk.map((line) => idOf.get(line)!) });
    }
  }
  return { steps, skipped };
}

/** The group a step's students went into (null when it could not be made), and each line's outcome. */
export interface Placed {
  groupId: string | null;
  outcomes: ClassOutcome[];
}

const eachLine = (step: PlacementStep, outcome: (studentId: string) => Omit<ClassOutcome, 'line'>): ClassOutcome[] =>
  step.lines.map((line, index) => ({ line, ...outcome(step.studentIds[index]!) }));

/**
 * One step: creates the group with its students (owned by `ownerId`) when neither the institution
 * nor an earlier step has it, otherwise adds them; those already in it stay and are said so. A
 * refusal (the owner suspended since the preview, the group deleted) is each line's outcome.
 */
export async function place(institutionId: string, step: PlacementStep, ownerId: string | null, createdId: string | undefined): Promise<Placed> {
  const groupId = step.groupId ?? createdId;
  const notPlaced = (reason: string) => ({ placed: 'not placed' as const, words: `not placed in ${step.name}: ${reason}` });
  const gone = notPlaced('the student no longer exists');
  try {
    if (!groupId) {
      const group = await call(
        portal.POST('/institutions/{institution}/groups', {
          params: { path: { institution: institutionId } },
          body: { name: step.name, faculty_id: ownerId, student_ids: step.studentIds },
        }),
      );
      const rejected = new Set(group.rejected_student_ids);
      return {
        groupId: group.id,
        outcomes: eachLine(step, (id) => (rejected.has(id) ? gone : { placed: 'placed', words: `placed in ${step.name} (new group)` })),
      };
    }
    const answer = await call(
      portal.POST('/institutions/{institution}/groups/{id}/members', {
        params: { path: { institution: institutionId, id: groupId } },
        body: { student_ids: step.studentIds },
      }),
    );
    const added = new Set(answer.added);
    const rejected = new Set(answer.rejected_student_ids);
    return {
      groupId,
      outcomes: eachLine(step, (id) =>
        added.has(id)
          ? { placed: 'placed', words: `placed in ${step.name}` }
          : rejected.has(id)
            ? gone
            : { placed: 'already', words: `already in ${step.name}` },
      ),
    };
  } catch (error) {
    if (error instanceof ApiError && error.code === 'already_added')
      return { groupId: groupId ?? null, outcomes: eachLine(step, () => ({ placed: 'already', words: `already in ${step.name}` })) };
    const reason = notPlaced(refusalInWords(error, GROUP_LABELS));
    return { groupId: groupId ?? null, outcomes: eachLine(step, () => reason) };
  }
}
