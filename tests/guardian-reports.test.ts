// @tier integration
// @databases sqlite, postgres
// Weekly guardian reports from real activity: a graded submission, an exam due soon, Alpha
// Learning practice. The report's stored content, its API body and its mail (an HTML part and a
// text part, every user-typed value escaped) say the same; unverified guardians get nothing.
// Only 127.0.0.1 is contacted (the SMTP server is tests/helpers/smtp.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCurriculum } from '../server/commands/alpha/curricula.js';
import { generateWeeklyReports, reportedWeek } from '../server/commands/people/guardian-reports.js';
import { openBody, openHtml } from '../server/mail/outbox.js';
import { setSmtpSettings } from '../server/mail/smtp-settings.js';
import type { MailOutboxRow } from '../server/models/mail.js';
import { learnerSession, makeInstitution, makeKey, makePerson, outboxText, startTestAppliance, type TestAppliance, type TestKey } from './helpers/appliance.js';
import { startSmtpServer } from './helpers/smtp.js';
import { waitFor } from './helpers/wait.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const STUDENT = '<b>Bobby</b> Tables';
const GRADED_TITLE = 'Fractions & <i>decimals</i>';
const DUE_TITLE = 'Algebra "test" <script>';

/** The Monday 06:00 UTC after today: the reported week is then this week. */
function nextMondayMorning(): Date {
  const now = new Date();
  const daysToMonday = 7 - ((now.getUTCDay() + 6) % 7);
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + daysToMonday, 6));
}

/** Quoted-printable undone, so the parts of a raw message can be searched. */
const decodeQp = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));

describe('weekly guardian reports', () => {
  let app: TestAppliance;
  beforeAll(async () => {
    app = await startTestAppliance();
  });
  afterAll(() => app.close());

  const api = (key: TestKey) => ({
    post: async (path: string, body: object) => {
      const res = await app.http.post(`/v1${path}`).set('Authorization', key.auth).send(body);
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
      return res.body.data;
    },
    get: async (path: string, query: Record<string, string> = {}) => {
      const res = await app.http.get(`/v1${path}`).set('Authorization', key.auth).query(query);
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
      return res.body.data;
    },
  });
  const learner = (token: string) => async (path: string, body: object) => {
    const res = await app.http.post(`/v1/app${path}`).set('Authorization', `Bearer ${token}`).send(body);
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body.data;
  };

  it('lists the week’s graded submission, the exam due in 3 days and Alpha practice; HTML and text mail to the verified guardian only', async () => {
    const inst = await makeInstitution(app, { name: 'Riverside & Co' });
    const key = await makeKey(app, inst);
    const { post, get } = api(key);
    const generatedAt = nextMondayMorning();

    const teacher = await makePerson(app, key, 'faculty', 'Grace Hopper');
    const student = await makePerson(app, key, 'students', STUDENT);
    const classmate = await makePerson(app, key, 'students', 'Alan Turing');
    const group = await post('/groups', { name: 'Year 10 <Maths>', faculty_id: teacher.id, student_ids: [student.id, classmate.id] });
    const exam = async (title: string, dueDate: Date | null, maxScore: number) => {
      const made = await post('/exams', { faculty_id: teacher.id, title, app: 'learning', max_score: maxScore, due_date: dueDate?.toISOString() ?? null });
      await post(`/exams/${made.id}/assignments`, { group_ids: [group.id] });
      await post(`/exams/${made.id}/publish`, {});
      return made as { id: string };
    };
    const graded = await exam(GRADED_TITLE, null, 10);
    const due = await exam(DUE_TITLE, new Date(generatedAt.getTime() + 3 * DAY_MS), 20);
    // Due in 3 days too, but already handed in; and one due too late to be "upcoming".
    const handedIn = await exam('Already handed in', new Date(generatedAt.getTime() + 3 * DAY_MS), 5);
    await exam('Next month', new Date(generatedAt.getTime() + 30 * DAY_MS), 5);

    // The student hands in two exams; one is graded with feedback.
    const session = learner(await learnerSession(app, key, student));
    const submit = async (examId: string) => {
      const attempt = await session(`/exams/${examId}/attempts`, {});
      return (await session(`/attempts/${attempt.id}/submit`, { answers: { text: 'my answer' } })) as { id: string };
    };
    const submission = await submit(graded.id);
    await post(`/submissions/${submission.id}/grade`, { score: 8, feedback: 'Well done <3', graded_by: teacher.login_email });
    await submit(handedIn.id);

    // Alpha Learning: enrolled in a curriculum, two practice activities through the learner session.
    const { curriculum, concepts } = await createCurriculum(app.ctx.db, {
      name: 'Arithmetic',
      description: 'Numbers',
      concepts: ['Adding', 'Taking away'],
      institution_id: inst.id,
      publish: true,
    });
    await post('/alpha/enrollments', { curriculum_id: curriculum.id, student_ids: [student.id], guide_id: teacher.id });
    await session('/alpha/activity', { curriculum_id: curriculum.id, concept_id: concepts[0]!.id, correct: true, minutes: 12 });
    const last = await session('/alpha/activity', { curriculum_id: curriculum.id, concept_id: concepts[1]!.id, correct: false, minutes: 5 });

    // One verified guardian (who confirmed on the invitation's page), one who never accepted.
    await post('/guardians', { student_id: student.id, guardian_email: 'verified@example.org', guardian_type: 'mother' });
    const [invitation] = await app.ctx.db.models.MailOutbox.findAll({ where: { institution_id: inst.id, kind: 'guardian_invite' } });
    const token = /\/guardian\/accept\?token=([A-Za-z0-9]{32})/.exec(outboxText(app, invitation))![1]!;
    expect((await app.http.post('/guardian/accept').query({ token })).status).toBe(200);
    await post('/guardians', { student_id: student.id, guardian_email: 'pending@example.org', guardian_type: 'father' });

    expect(await generateWeeklyReports(app.ctx.db, { institutionId: inst.id, now: generatedAt })).toEqual({ generated: 1 });

    const reports = await get('/guardians/reports', { student_id: student.id });
    expect(reports.items).toHaveLength(1);
    const summary = reports.items[0].summary;
    expect(summary.week).toEqual({ start: reportedWeek(generatedAt).start, end: reportedWeek(generatedAt).end });
    expect(summary.student).toEqual({ full_name: STUDENT, status: 'active' });
    expect(summary.submissions).toEqual([
      expect.objectContaining({ exam_id: graded.id, exam_title: GRADED_TITLE, status: 'graded', score: 8, max_score: 10, has_feedback: true }),
      expect.objectContaining({
        exam_id: handedIn.id,
        exam_title: 'Already handed in',
        status: 'submitted',
        score: null,
        max_score: 5,
        has_feedback: false,
        graded_at: null,
      }),
    ]);
    expect(summary.upcoming_exams).toEqual([
      { exam_id: due.id, exam_title: DUE_TITLE, due_date: new Date(generatedAt.getTime() + 3 * DAY_MS).toISOString(), max_score: 20 },
    ]);
    expect(summary.alpha).toMatchObject({
      minutes: 17,
      activities: 2,
      curricula: [{ curriculum_id: curriculum.id, name: 'Arithmetic', concepts_total: 2, concepts_mastered: 0 }],
    });
    expect(summary.alpha.points_earned).toBeGreaterThan(0);
    expect(summary.alpha.points_total).toBe(summary.alpha.points_earned);
    expect(summary.alpha.points_total).toBe((last as { total: number }).total);
    expect(summary.alpha.curricula[0].average_mastery).toBeGreaterThan(0);
    // The stored content is what the API shows.
    const stored = await inst.tenant.guardianReports.findById(reports.items[0].id);
    expect(stored!.summary).toEqual(summary);

    // Mail: one, to the verified guardian, with both parts.
    const mails = (await app.ctx.db.models.MailOutbox.findAll({ where: { institution_id: inst.id, kind: 'guardian_report' } })) as MailOutboxRow[];
    expect(mails.map((mail) => mail.to_masked)).toEqual(['v•••@example.org']);
    const text = outboxText(app, mails[0]);
    const html = openHtml(app.ctx.db, mails[0]!) ?? '';
    expect(text).toContain(`${GRADED_TITLE}: 8 / 10`);
    expect(text).toContain(`${DUE_TITLE}: due`);
    expect(text).toContain('17 minutes in 2 activities');
    expect(text).toContain(STUDENT);
    expect(html).toContain('Fractions &amp; &lt;i&gt;decimals&lt;/i&gt;: 8 / 10');
    expect(html).toContain('Algebra &quot;test&quot; &lt;script&gt;: due');
    expect(html).toContain('&lt;b&gt;Bobby&lt;/b&gt; Tables');
    expect(html).toContain('Riverside &amp; Co');
    expect(html).toContain('Year 10 &lt;Maths&gt;');
    expect(html).toContain('17 minutes in 2 activities');
    expect(html).not.toMatch(/<b>|<i>|<script>|<Maths>/);

    // Sent over SMTP: multipart/alternative, text and HTML, to the verified guardian alone.
    const smtp = await startSmtpServer();
    try {
      await setSmtpSettings(app.ctx.db, { host: '127.0.0.1', port: smtp.port, secure: false, from: 'School <noreply@school.example>' });
      await app.scheduler.runNow('send-mail');
      const isReport = (message: { raw: string }) => /^Subject: .*weekly report for/im.test(message.raw);
      const report = await waitFor(async () => smtp.received.find(isReport), 'the report mail');
      expect(smtp.received.filter(isReport).map((message) => message.to)).toEqual([['verified@example.org']]);
      const raw = decodeQp(report.raw);
      expect(raw).toMatch(/multipart\/alternative/);
      expect(raw).toMatch(/Content-Type: text\/plain/);
      expect(raw).toMatch(/Content-Type: text\/html/);
      expect(raw).toContain('&lt;b&gt;Bobby&lt;/b&gt;');
      const sent = await app.ctx.db.models.MailOutbox.findByPk(mails[0]!.id);
      expect(sent).toMatchObject({ status: 'sent', body_sealed: null, html_sealed: null });
      expect(openBody(app.ctx.db, sent!)).toBeNull();
    } finally {
      await smtp.close();
    }
  });
});
