/**
 * The learner page in Chromium: the LMS mints a launch link, the student's browser opens it, sees
 * the exams assigned to them, and the page loads none of the admin portal's code. Then the exam a
 * student takes (issue 17): the teacher's Markdown instructions rendered safely, a coding exam's
 * toolchain and commands, the time left surviving a reload, and the student's devices, one of
 * which they release.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { learnerSession, makeInstitution, makeKey, requestsAs, startTestAppliance, type TestAppliance, type TestKey } from '../helpers/appliance.js';
import { seriousViolations } from '../helpers/axe.js';
import { chromiumAvailable, launchChromium, screenshotter } from '../helpers/browser.js';

const INSTRUCTIONS = ['# Rules', '', 'Answer **every** question.', '', '<script>window.__pwned = true</script>'].join('\n');

describe.skipIf(!chromiumAvailable())('Learner page in Chromium', () => {
  let app: TestAppliance;
  let browser: Browser;
  let key: TestKey;
  const v1 = requestsAs(() => app);
  const shot = screenshotter('learner');

  /** The answer's `data`, after checking the call succeeded. */
  const data = <T>(res: { status: number; body: { data: T } }, what: string): T => {
    expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body.data;
  };

  beforeAll(async () => {
    [app, browser] = await Promise.all([startTestAppliance(), launchChromium()]);
    key = await makeKey(app, await makeInstitution(app), { scopes: ['all'] });
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('opens a launch link and lists the student’s exams, without the portal’s code', async () => {
    const teacher = data<{ id: string }>(await v1.post(key, '/faculty', { full_name: 'Barbara Liskov' }), 'faculty');
    const student = data<{ id: string; login_email: string }>(await v1.post(key, '/students', { full_name: 'Ada Lovelace' }), 'student');
    const group = data<{ id: string }>(await v1.post(key, '/groups', { name: 'CS 101', faculty_id: teacher.id, student_ids: [student.id] }), 'group');
    const exam = data<{ id: string }>(await v1.post(key, '/exams', { faculty_id: teacher.id, title: 'Recursion quiz', max_score: 10 }), 'exam');
    data(await v1.post(key, `/exams/${exam.id}/publish`), 'publish');
    data(await v1.post(key, `/exams/${exam.id}/assignments`, { group_ids: [group.id] }), 'assign');
    const { launch_url: launchUrl } = data<{ launch_url: string }>(
      await v1.post(key, '/sso/tokens', { email: student.login_email, app: 'learning', ttl_seconds: 120 }),
      'mint',
    );

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const scripts: string[] = [];
    page.on('request', (request) => {
      if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
    });

    await page.goto(launchUrl);
    await page.getByRole('heading', { name: 'My exams' }).waitFor();
    await page.getByRole('heading', { name: 'Recursion quiz' }).waitFor();
    await shot(page, 'my-exams');
    // Its own styles came with it (the portal's stylesheet, which it does not load, used to set them).
    expect(await page.evaluate(() => getComputedStyle(document.body).fontFamily)).toContain('system-ui');
    expect(errors).toEqual([]);
    expect(scripts.some((script) => script.includes('LearnerApp'))).toBe(true);
    expect(scripts.filter((script) => script.includes('PortalApp'))).toEqual([]);
    await context.close();
  });

  it('renders the instructions safely, keeps the time left across a reload, and releases a device', async () => {
    const teacher = data<{ id: string }>(await v1.post(key, '/faculty', { full_name: 'Barbara Liskov' }), 'faculty');
    const student = data<{ id: string; login_email: string }>(await v1.post(key, '/students', { full_name: 'Ada Lovelace' }), 'student');
    const group = data<{ id: string }>(await v1.post(key, '/groups', { name: 'CS 101', faculty_id: teacher.id, student_ids: [student.id] }), 'group');
    const due = new Date(Date.now() + 3 * 24 * 3600_000);
    const quiz = data<{ id: string }>(
      await v1.post(key, '/exams', {
        faculty_id: teacher.id,
        title: 'Recursion quiz',
        description: INSTRUCTIONS,
        time_limit_minutes: 30,
        due_date: due.toISOString(),
        publish: true,
        group_ids: [group.id],
      }),
      'quiz',
    );
    data(
      await v1.post(key, '/exams', {
        faculty_id: teacher.id,
        title: 'Linked lists',
        app: 'code',
        code_spec: { toolchain: 'python-3.12', commands: { test: ['pytest -q'] } },
        publish: true,
        group_ids: [group.id],
      }),
      'coding exam',
    );
    // Another device of the same student, signed in elsewhere: it holds a seat too.
    await learnerSession(app, key, student, { exchange: { device: { id: 'phone-1', name: 'Phone in the locker' } } });
    const { launch_url: launchUrl } = data<{ launch_url: string }>(
      await v1.post(key, '/sso/tokens', { email: student.login_email, app: 'learning', ttl_seconds: 120 }),
      'mint',
    );

    // Without the page's CSP: axe needs to inject its script, and a <script> that slipped through
    // the Markdown would then run, so the check below rests on the rendering alone.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(launchUrl);
    await page.getByRole('heading', { name: 'My exams' }).waitFor();
    const coding = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Linked lists' }) });
    await coding.getByText('python-3.12').waitFor();
    await coding.getByText('pytest -q').waitFor();
    await shot(page, 'list-with-coding-facts');

    await page.getByRole('button', { name: 'Open exam: Recursion quiz' }).click();
    await page.getByRole('heading', { name: 'Recursion quiz', level: 1 }).waitFor();
    // The Markdown heading is a heading (under the page's own), the raw script is text and never ran.
    await page.getByRole('heading', { name: 'Rules', level: 3 }).waitFor();
    await page.getByText('<script>window.__pwned = true</script>').waitFor();
    expect(await page.locator('.learner-instructions strong').textContent()).toBe('every');
    expect(await page.locator('.learner-instructions script').count()).toBe(0);
    expect(await page.evaluate(() => (window as { __pwned?: boolean }).__pwned)).toBeUndefined();
    await page.getByText(/^Due .+\.$/).waitFor();
    const timer = page.getByRole('timer');
    expect(await timer.textContent()).toMatch(/^(30:00|29:\d\d)$/);
    await shot(page, 'attempt-instructions-and-time');
    expect(await seriousViolations(page)).toEqual([]);

    await page.reload();
    await page.getByRole('heading', { name: 'Recursion quiz', level: 1 }).waitFor();
    expect(await page.getByRole('timer').textContent()).toMatch(/^(30:00|29:\d\d)$/);
    expect(await app.ctx.db.models.Attempt.count({ where: { exam_id: quiz.id } })).toBe(1);
    await shot(page, 'attempt-after-reload');

    // Back in the list, the open attempt shows its time left, not "the clock starts when…".
    await page.getByRole('button', { name: 'Back to my exams' }).click();
    const quizCard = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Recursion quiz' }) });
    await quizCard.getByText(/Your attempt is open\. Time left: (30:00|29:\d\d)/).waitFor();
    expect(await quizCard.getByText('The clock starts when you press').count()).toBe(0);
    await quizCard.getByRole('button', { name: 'Resume exam: Recursion quiz' }).waitFor();

    // Devices: this browser and the phone; the phone is released.
    const devices = page.getByRole('region', { name: 'My devices' });
    await devices.getByRole('heading', { name: 'Phone in the locker' }).waitFor();
    await devices.getByText('This device', { exact: true }).waitFor();
    await shot(page, 'list-open-attempt-and-devices');
    expect(await seriousViolations(page)).toEqual([]);
    await devices.getByRole('button', { name: 'Release Phone in the locker' }).click();
    await devices.getByRole('status').getByText('Phone in the locker was released.').waitFor();
    expect(await devices.getByRole('heading', { name: 'Phone in the locker' }).count()).toBe(0);
    const phone = await app.ctx.db.models.DeviceSeat.findOne({ where: { device_id: 'phone-1' } });
    expect(phone?.status).toBe('revoked');
    await shot(page, 'device-released');
    expect(errors).toEqual([]);
    await context.close();
  });
});
