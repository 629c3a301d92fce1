import type { ExamRow, ExamType } from '../models/exam.js';
import type { InstitutionRow } from '../models/institution.js';
import type { PersonRow } from '../models/person.js';
import { givenName } from './names.js';

/**
 * The mails that tell a student, and each verified guardian, that an exam is now open to them.
 * Rendering only: the exam commands decide who gets one and queue it.
 */
export interface ExamNotice {
  subject: string;
  text: string;
}

const NOUN: Record<ExamType, string> = { exam: 'an exam', homework: 'homework', assignment: 'an assignment', quiz: 'a quiz', project: 'a project' };
const dueText = (exam: ExamRow) => (exam.due_date ? `${exam.due_date.toISOString().slice(0, 16).replace('T', ' ')} UTC` : 'no due date');

function lmsName(institution: InstitutionRow): string {
  const name = institution.config.lms?.name;
  return typeof name === 'string' && name.trim() ? `the school's LMS (${name.trim()})` : `the school's LMS`;
}

function examLines(exam: ExamRow): string[] {
  return [`"${exam.title}"`, `Due: ${dueText(exam)}`, ...(exam.time_limit_minutes ? [`Time limit: ${exam.time_limit_minutes} minutes once started`] : [])];
}

export function examAssignedNotice(exam: ExamRow, student: PersonRow, institution: InstitutionRow): ExamNotice {
  const text = [
    `Hello ${givenName(student.full_name)},`,
    '',
    `${institution.name} has assigned you ${NOUN[exam.exam_type]}:`,
    '',
    ...examLines(exam),
    '',
    `Open it from ${lmsName(institution)}: sign in there as usual and follow the link to it.`,
    'This message contains no link on purpose: never sign in from a link in an email.',
  ].join('\n');
  // "(due no due date)" would read oddly: the subject names a due date only when there is one.
  return { subject: `${institution.name}: ${exam.title}${exam.due_date ? ` (due ${dueText(exam)})` : ''}`, text };
}

export function examAssignedGuardianNotice(exam: ExamRow, student: PersonRow, institution: InstitutionRow, guardianName: string | null): ExamNotice {
  const first = givenName(student.full_name);
  const text = [
    guardianName ? `Hello ${guardianName},` : 'Hello,',
    '',
    `${institution.name} has assigned ${student.full_name} ${NOUN[exam.exam_type]}:`,
    '',
    ...examLines(exam),
    '',
    `${first} opens it from ${lmsName(institution)}.`,
    `You receive this because you confirmed you are a guardian of ${first} at ${institution.name}.`,
  ].join('\n');
  return { subject: `${institution.name}: ${first} has been assigned ${exam.title}`, text };
}
