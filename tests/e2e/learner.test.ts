/**
 * The learner page in Chromium: the LMS mints a launch link, the student's browser opens it, sees
 * the exams assigned to them, and the page loads none of the admin portal's code.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeInstitution, makeKey, requestsAs, startTestAppliance, type TestAppliance, type TestKey } from '../helpers/appliance.js';
import { chromiumAvailable, launchChromium, screenshotter } from '../helpers/browser.js';

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
});
