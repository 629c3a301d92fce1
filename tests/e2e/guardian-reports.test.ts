// @tier browser
// @databases sqlite: the portal in Chromium; what its pages call is proven on both databases by the integration suites
/**
 * Weekly guardian reports in Chromium: the institution admin opens a student of the
 * demo institution, finds the "Guardian reports" section and reads a report's contents in its
 * dialog: the week's submissions with scores, what is due next, Alpha minutes and mastery. The
 * report is made from the demo's activity plus a graded submission and an exam due in 3 days.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCurriculum } from '../../server/commands/alpha/curricula.js';
import { generateWeeklyReports } from '../../server/commands/people/guardian-reports.js';
import { seedDemo, type DemoSeed } from '../../server/commands/demo/seed.js';
import { Tenant } from '../../server/db/tenant.js';
import { newId } from '../../server/ids.js';
import { learnerSession, outboxText, startTestAppliance, type TestAppliance } from '../helpers/appliance.js';
import { chromiumAvailable, launchChromium, openPage, screenshotter, signInOnPage } from '../helpers/browser.js';
import { setUpPortal } from '../helpers/portal.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const OPERATOR = { institution: 'Lakeside School', admin_email: 'operator@lakeside.test', admin_password: 'lakeside operator pw' };

/** The Monday 06:00 UTC after today: the reported week is then this week. */
function nextMondayMorning(): Date {
  const now = new Date();
  const daysToMonday = 7 - ((now.getUTCDay() + 6) % 7);
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + daysToMonday, 6));
}

describe.skipIf(!chromiumAvailable())('Guardian reports in the portal', () => {
  let app: TestAppliance;
  let browser: Browser;
  let demo: DemoSeed;
  const shot = screenshotter('guardian-reports');

  beforeAll(async () => {
    [app, browser] = await Promise.all([startTestAppliance(), launchChromium()]);
    await setUpPortal(app, OPERATOR);
    demo = await seedDemo(app.ctx.db, { portalUrl: app.origin, dataDir: app.ctx.config.dataDir });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('the admin opens a student’s weekly report and reads its submissions, due exams and Alpha practice', async () => {
    const tenant = new Tenant(app.ctx.db, demo.institution.id);
    const generatedAt = nextMondayMorning();
    const link = (await tenant.guardianLinks.findAll({ where: { verified: true }, order: [['created_at', 'ASC']] }))[0]!;
    const student = (await tenant.people.findById(link.student_id))!;
    // An exam of the student's group due in 3 days, not handed in.
    const membership = (await tenant.groupMembers.findOne({ where: { student_id: student.id } }))!;
    const faculty = (await tenant.people.findOne({ where: { role: 'faculty' } }))!;
    await tenant.inTransaction(async (tx) => {
      const exam = await tx.exams.create({
        id: newId('exm'),
        faculty_id: faculty.id,
        title: 'Volcanoes <quiz>',
        description: '',
        exam_type: 'quiz',
        app: 'learning',
        status: 'published',
        max_score: 12,
        due_date: new Date(generatedAt.getTime() + 3 * DAY_MS),
        time_limit_minutes: null,
        proctoring: {},
        ai_policy: {},
        code_spec: null,
        published_at: new Date(),
        closed_at: null,
      });
      await tx.examAssignments.create({ exam_id: exam.id, group_id: membership.group_id, assigned_at: new Date() });
    });
    // Alpha practice through the student's learner session: 14 minutes on a curriculum of one concept.
    const key = { id: '', key: demo.key, auth: `Bearer ${demo.key}` };
    const { curriculum, concepts } = await createCurriculum(app.ctx.db, {
      name: 'Plate tectonics',
      description: 'Earth science',
      concepts: ['Faults'],
      institution_id: demo.institution.id,
      publish: true,
    });
    const enrolled = await app.http
      .post('/v1/alpha/enrollments')
      .set('Authorization', key.auth)
      .send({ curriculum_id: curriculum.id, student_ids: [student.id], guide_id: faculty.id });
    expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(200);
    const session = await learnerSession(app, key, student);
    const practised = await app.http
      .post('/v1/app/alpha/activity')
      .set('Authorization', `Bearer ${session}`)
      .send({ curriculum_id: curriculum.id, concept_id: concepts[0]!.id, correct: true, minutes: 14 });
    expect(practised.status, JSON.stringify(practised.body)).toBe(200);

    expect((await generateWeeklyReports(app.ctx.db, { institutionId: demo.institution.id, now: generatedAt })).generated).toBeGreaterThan(0);
    const report = (await tenant.guardianReports.findOne({ where: { student_id: student.id } }))!;
    expect(report.summary.upcoming_exams?.map((item) => item.exam_title)).toContain('Volcanoes <quiz>');

    const { page, errors } = await openPage(browser);
    await signInOnPage(page, app.origin, demo.admin.account.email, demo.admin.password);
    await page.goto(`${app.origin}/#/i/${demo.institution.id}/students/${student.id}`);
    const table = page.getByRole('table', { name: 'Guardian reports' });
    const row = table.getByRole('row', { name: new RegExp(`${report.summary.week.start} to ${report.summary.week.end}`) });
    await row.waitFor();
    await row.scrollIntoViewIfNeeded();
    await shot(page, 'student-reports');
    await row.click();

    const dialog = page.getByRole('dialog', { name: `Weekly report, ${report.summary.week.start} to ${report.summary.week.end}` });
    await dialog.waitFor();
    await expect(dialog.getByText('Volcanoes <quiz>: due', { exact: false }).textContent()).resolves.toContain('Volcanoes <quiz>');
    // The week's practice: the demo's own (it seeds weeks of it) and the 14 minutes above.
    const { start, end } = report.summary.week;
    const weekActivities = (await tenant.alphaActivities.findAll({ where: { student_id: student.id } })).filter((row) => {
      const day = row.occurred_at.toISOString().slice(0, 10);
      return day >= start && day <= end;
    });
    const minutes = weekActivities.reduce((sum, row) => sum + row.minutes, 0);
    expect(weekActivities.some((row) => row.minutes === 14)).toBe(true);
    const alpha = report.summary.alpha!;
    expect(alpha).toMatchObject({ minutes, activities: weekActivities.length });
    expect(alpha.curricula).toContainEqual(expect.objectContaining({ name: 'Plate tectonics', concepts_total: 1 }));
    const activityWord = weekActivities.length === 1 ? 'activity' : 'activities';
    await expect(dialog.getByText(`Practice: ${minutes} minutes in ${weekActivities.length} ${activityWord}`).count()).resolves.toBe(1);
    for (const curriculum of alpha.curricula) await expect(dialog.getByText(`${curriculum.name}:`, { exact: false }).count()).resolves.toBe(1);
    const submissions = dialog.getByRole('table', { name: `Submissions, ${start} to ${end}` });
    for (const item of report.summary.submissions ?? []) {
      const cells = submissions.getByRole('row', { name: new RegExp(item.exam_title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) });
      await expect(cells.count()).resolves.toBeGreaterThan(0);
    }
    if ((report.summary.submissions ?? []).length === 0) await expect(dialog.getByText('No submissions in that week.').count()).resolves.toBe(1);
    await shot(page, 'report-dialog');
    expect(errors).toEqual([]);
  });

  it('a report made late speaks of the week it covers and of dated days, in the portal and in the mail', async () => {
    const tenant = new Tenant(app.ctx.db, demo.institution.id);
    // The Thursday of the week after next Monday: the appliance was off on the Monday.
    const madeAt = new Date(nextMondayMorning().getTime() + 10 * DAY_MS);
    expect((await generateWeeklyReports(app.ctx.db, { institutionId: demo.institution.id, now: madeAt })).generated).toBeGreaterThan(0);
    const report = (await tenant.guardianReports.findAll({ order: [['created_at', 'DESC']], limit: 1 }))[0]!;
    const { start, end } = report.summary.week;
    const made = madeAt.toISOString().slice(0, 10);
    const dueEnd = new Date(madeAt.getTime() + 6 * DAY_MS).toISOString().slice(0, 10);
    expect(report.summary.upcoming_window).toEqual({ start: made, end: dueEnd });

    const { page, errors } = await openPage(browser);
    await signInOnPage(page, app.origin, demo.admin.account.email, demo.admin.password);
    await page.goto(`${app.origin}/#/i/${demo.institution.id}/students/${report.student_id}`);
    await page
      .getByRole('table', { name: 'Guardian reports' })
      .getByRole('row', { name: new RegExp(`${start} to ${end}`) })
      .click();
    const dialog = page.getByRole('dialog', { name: `Weekly report, ${start} to ${end}` });
    await dialog.getByRole('heading', { name: `Submissions, ${start} to ${end}` }).waitFor();
    await dialog.getByRole('heading', { name: `Due ${made} to ${dueEnd}` }).waitFor();
    await expect(dialog.textContent()).resolves.not.toMatch(/this week|next 7 days/i);
    await shot(page, 'late-report');

    const mail = (await tenant.mailOutbox.findAll({ where: { kind: 'guardian_report' }, order: [['created_at', 'DESC']], limit: 1 }))[0];
    const text = outboxText(app, mail);
    expect(text).toContain(`Made on ${made}, about the week of ${start} to ${end}.`);
    expect(text).toContain(`Due ${made} to ${dueEnd}`);
    expect(text).not.toMatch(/this week|next 7 days/i);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('a guardian invited from the student page confirms with the button; opening the link alone confirms nothing', async () => {
    const created = await app.http.post('/v1/students').set('Authorization', `Bearer ${demo.key}`).send({ full_name: 'Ashworth-Smythe, Tom' });
    expect(created.status, created.text).toBe(200);
    const student = created.body.data as { id: string };

    const { page, errors } = await openPage(browser);
    await signInOnPage(page, app.origin, demo.admin.account.email, demo.admin.password);
    await page.goto(`${app.origin}/#/i/${demo.institution.id}/students/${student.id}`);
    await page.getByRole('heading', { name: 'Guardians' }).waitFor();
    await page.getByText('No guardian yet').waitFor();
    await page.getByRole('button', { name: 'Invite a guardian' }).click();
    const dialog = page.getByRole('dialog', { name: 'Invite a guardian' });
    await dialog.getByLabel('Email').fill('anne.ashworth@family.example');
    await dialog.getByLabel('Name').fill('Anne Ashworth-Smythe');
    await shot(page, 'invite-guardian');
    await dialog.getByRole('button', { name: 'Send invitation' }).click();
    const table = page.getByRole('table', { name: 'Guardians' });
    await table
      .getByRole('row')
      .filter({ hasText: 'anne.ashworth@family.example' })
      .filter({ hasText: /invited/ })
      .waitFor();

    const tenant = new Tenant(app.ctx.db, demo.institution.id);
    const link = (await tenant.guardianLinks.findOne({ where: { student_id: student.id } }))!;
    const invitation = (await tenant.mailOutbox.findAll({ where: { kind: 'guardian_invite' }, order: [['created_at', 'DESC']], limit: 1 }))[0];
    const mail = outboxText(app, invitation);
    expect(mail).toContain('Hello Anne,');
    expect(mail).toContain("has listed you as Tom Ashworth-Smythe's mother.");
    const url = /(http:\/\/127\.0\.0\.1:\d+\/guardian\/accept\?token=[A-Za-z0-9]{32})/.exec(mail)![1]!;

    // A mail scanner fetching the link: the page, no confirmation.
    expect((await fetch(url)).status).toBe(200);
    expect((await tenant.guardianLinks.findById(link.id))!.verified).toBe(false);

    // The guardian opens the link and presses Confirm.
    const guardian = await browser.newContext();
    const guardianPage = await guardian.newPage();
    await guardianPage.goto(url);
    await guardianPage.getByRole('heading', { name: "Confirm you are Tom's guardian" }).waitFor();
    expect((await tenant.guardianLinks.findById(link.id))!.verified).toBe(false);
    await shot(guardianPage, 'guardian-confirm-page');
    await guardianPage.getByRole('button', { name: 'Confirm' }).click();
    await guardianPage.getByRole('heading', { name: 'Thank you, you are confirmed' }).waitFor();
    await shot(guardianPage, 'guardian-confirmed');
    await guardian.close();
    expect((await tenant.guardianLinks.findById(link.id))!.verified).toBe(true);

    await page.reload();
    await table
      .getByRole('row')
      .filter({ hasText: 'anne.ashworth@family.example' })
      .filter({ hasText: /confirmed/ })
      .waitFor();
    await shot(page, 'student-guardians');

    // What Anne will receive, previewed: the subject by the student's given name, her address, the mail's own page.
    await page.getByRole('button', { name: 'Preview the mail' }).click();
    const preview = page.getByRole('dialog', { name: 'What a guardian receives' });
    await preview.getByText(`${demo.institution.name}: weekly report for Tom (week of`).waitFor();
    await preview.getByText('anne.ashworth@family.example').waitFor();
    const mailFrame = page.frameLocator('iframe[title="The report as the guardian\'s mail shows it"]');
    await mailFrame.getByRole('heading', { name: /Weekly report for Ashworth-Smythe, Tom/ }).waitFor();
    await shot(page, 'guardian-mail-preview');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('the student page lists the groups a student is in, adds to one and takes out of one', async () => {
    const created = await app.http.post('/v1/students').set('Authorization', `Bearer ${demo.key}`).send({ full_name: 'Grace Hopper-Group' });
    expect(created.status, created.text).toBe(200);
    const student = created.body.data as { id: string };
    const groups = (await app.http.get('/v1/groups').query({ limit: 2, sort: 'name' }).set('Authorization', `Bearer ${demo.key}`)).body.data.items as Array<{
      id: string;
      name: string;
    }>;
    const [first, second] = groups;
    const added = await app.http
      .post(`/v1/groups/${first!.id}/members`)
      .set('Authorization', `Bearer ${demo.key}`)
      .send({ student_ids: [student.id] });
    expect(added.status, added.text).toBe(200);

    const { page, errors } = await openPage(browser);
    await signInOnPage(page, app.origin, demo.admin.account.email, demo.admin.password);
    await page.goto(`${app.origin}/#/i/${demo.institution.id}/students/${student.id}`);
    const table = page.getByRole('table', { name: 'Groups' });
    // The group's name is a link to its page.
    await table.getByRole('link', { name: first!.name }).waitFor();

    await page.getByRole('button', { name: 'Add to a group' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add to a group' });
    await dialog.getByRole('combobox', { name: 'Group' }).fill(second!.name);
    await page.getByRole('option', { name: second!.name, exact: true }).click();
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await table.getByRole('link', { name: second!.name }).waitFor();
    await shot(page, 'student-groups');
    // The toast sits where the row's menu opens: dismissed, as a person would.
    await page.getByRole('button', { name: 'Dismiss this message' }).click();
    await page.getByRole('button', { name: 'Dismiss this message' }).waitFor({ state: 'detached' });

    await table.getByRole('row').filter({ hasText: first!.name }).getByRole('button').click();
    await page.getByRole('menuitem', { name: 'Take out of this group' }).click();
    await page.getByRole('dialog', { name: 'Take out of this group?' }).getByRole('button', { name: 'Take out' }).click();
    await expect.poll(() => table.getByRole('link', { name: first!.name }).count()).toBe(0);
    const memberOf = (await app.http.get('/v1/groups').query({ student_id: student.id }).set('Authorization', `Bearer ${demo.key}`)).body.data.items as Array<{
      id: string;
    }>;
    expect(memberOf.map((group) => group.id)).toEqual([second!.id]);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
