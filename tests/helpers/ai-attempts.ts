import { expect } from 'vitest';
import { newId } from '../../server/ids.js';
import { makePerson, type TestAppliance, type TestPerson, type TestSchool } from './appliance.js';

export interface AiPolicy {
  allowed?: boolean;
  model_tier?: string;
  max_interactions?: number;
}

export interface ExamForAi {
  examId: string;
  groupId: string;
}

/**
 * A published exam with this `ai_policy`, assigned to a new group holding `students`. Written
 * directly (exam creation is another area's test); the group goes through the API.
 */
export async function examWithAiPolicy(
  app: TestAppliance,
  s: TestSchool,
  students: TestPerson[],
  aiPolicy: AiPolicy,
  options: { time_limit_minutes?: number | null } = {},
): Promise<ExamForAi> {
  const teacher = await makePerson(app, s.key, 'faculty', 'Grace Hopper');
  const group = await app.http
    .post('/v1/groups')
    .set('Authorization', s.key.auth)
    .send({ name: 'AI class', faculty_id: teacher.id, student_ids: students.map((student) => student.id) });
  expect(group.status, JSON.stringify(group.body)).toBe(200);
  const examId = newId('exm');
  await s.inst.tenant.inTransaction(async (tx) => {
    await tx.exams.create({
      id: examId,
      faculty_id: teacher.id,
      title: 'Essay with an assistant',
      description: '',
      exam_type: 'exam',
      app: 'learning',
      status: 'published',
      max_score: 100,
      due_date: null,
      time_limit_minutes: options.time_limit_minutes === undefined ? 60 : options.time_limit_minutes,
      proctoring: { camera: false, screen: false },
      ai_policy: { ...aiPolicy },
      code_spec: null,
      published_at: new Date(),
      closed_at: null,
    });
    await tx.examAssignments.create({ exam_id: examId, group_id: group.body.data.id, assigned_at: new Date() });
  });
  return { examId, groupId: group.body.data.id as string };
}

/** The student's attempt on the exam, started as the learner page starts it. */
export async function startAttemptAs(app: TestAppliance, session: string, examId: string): Promise<string> {
  const res = await app.http.post(`/v1/app/exams/${examId}/attempts`).set('Authorization', `Bearer ${session}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.id as string;
}
