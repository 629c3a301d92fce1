// @tier browser
// @databases sqlite: the portal in Chromium; what its pages call is proven on both databases by the integration suites
/**
 * Alpha practice on the learner page in Chromium (docs/decisions/alpha-practice.md): a student opens their launch link,
 * sees the curricula they are enrolled in with mastery per concept, practises a concept, and sees
 * the recorded answer move their mastery and points, here and in the school's API. At phone width
 * (390 px) nothing runs off the side, and axe finds nothing serious.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALPHA_RULES, nextMastery } from '../../server/commands/alpha/rules.js';
import { makeInstitution, makeKey, requestsAs, startTestAppliance, type TestAppliance, type TestKey } from '../helpers/appliance.js';
import { horizontalOverflow, seriousViolations } from '../helpers/axe.js';
import { chromiumAvailable, launchChromium, screenshotter } from '../helpers/browser.js';
import { runCliCaptured } from '../helpers/cli.js';

interface Curriculum {
  id: string;
  concepts: Array<{ id: string; name: string }>;
}

const percent = (mastery: number) => `${Math.round(mastery * 100)}%`;

describe.skipIf(!chromiumAvailable())('Alpha practice on the learner page in Chromium', () => {
  let app: TestAppliance;
  let browser: Browser;
  let key: TestKey;
  const v1 = requestsAs(() => app);
  const shot = screenshotter('learner-alpha');
  /** The enrolled student, made in beforeAll. */
  const state = { studentId: '', loginEmail: '' };

  const data = <T>(res: { status: number; body: { data: T } }, what: string): T => {
    expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body.data;
  };

  async function curriculum(name: string, concepts: string[], institutionId: string): Promise<Curriculum> {
    const result = await runCliCaptured(
      app.dataDir,
      'curriculum',
      'create',
      '--name',
      name,
      '--concepts',
      concepts.join(','),
      '--institution',
      institutionId,
      '--publish',
    );
    expect(result.stderr).toBe('');
    return JSON.parse(result.stdout) as Curriculum;
  }

  beforeAll(async () => {
    [app, browser] = await Promise.all([startTestAppliance(), launchChromium()]);
    const institution = await makeInstitution(app);
    key = await makeKey(app, institution, { scopes: ['all'] });
    const student = data<{ id: string; login_email: string }>(await v1.post(key, '/students', { full_name: 'Ada Lovelace' }), 'student');
    const fractions = await curriculum('Fractions', ['Halves and quarters', 'Equivalent fractions', 'Adding fractions'], institution.id);
    const algebra = await curriculum('Algebra foundations', ['Variables', 'One-step equations'], institution.id);
    for (const { id } of [fractions, algebra]) {
      data(await v1.post(key, '/alpha/enrollments', { curriculum_id: id, student_ids: [student.id], daily_target_minutes: 20 }), 'enroll');
    }
    const [, paused] = data<{ items: Array<{ id: string }> }>(await v1.get(key, `/alpha/enrollments?student_id=${student.id}`), 'enrollments').items;
    data(await v1.patch(key, `/alpha/enrollments/${paused!.id}`, { status: 'paused' }), 'pause');
    state.studentId = student.id;
    state.loginEmail = student.login_email;
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  async function open(width: number): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> {
    const { launch_url: launchUrl } = data<{ launch_url: string }>(
      await v1.post(key, '/sso/tokens', { email: state.loginEmail, app: 'learning', ttl_seconds: 120 }),
      'mint',
    );
    // Without the page's CSP, so axe can inject its script.
    const context = await browser.newContext({ viewport: { width, height: 900 }, bypassCSP: true });
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(launchUrl);
    await page.getByRole('heading', { name: 'Practice', level: 2 }).waitFor();
    return { page, errors, close: () => context.close() };
  }

  it('shows the curricula with mastery per concept; practising a concept records the answer and moves mastery and points', async () => {
    const { page, errors, close } = await open(1280);
    const practice = page.locator('section.learner-alpha');
    await practice.getByRole('heading', { name: 'Fractions', level: 3 }).waitFor();
    await practice.getByRole('heading', { name: /Algebra foundations/, level: 3 }).waitFor();
    // The paused curriculum says so and offers no practice.
    await practice.getByText('Paused by your school').waitFor();
    expect(await practice.getByRole('button', { name: 'Practise Variables' }).count()).toBe(0);
    const halves = page.getByRole('progressbar', { name: 'Mastery of Halves and quarters' });
    expect(await halves.getAttribute('value')).toBe('0');
    await practice.getByText('No badges yet').waitFor();
    await shot(page, 'curricula');
    expect(await seriousViolations(page)).toEqual([]);

    await practice.getByRole('button', { name: 'Practise Halves and quarters' }).click();
    await page.getByRole('heading', { name: 'Practise: Halves and quarters', level: 2 }).waitFor();
    await page.getByLabel('Minutes spent').fill('12');
    await page.getByRole('button', { name: 'I got it right' }).click();
    const status = page.getByRole('status').filter({ hasText: 'Recorded as right' });
    await status.waitFor();
    const once = nextMastery(0, true);
    expect(await status.textContent()).toContain(`Mastery of Halves and quarters: 0% → ${percent(once)}`);
    expect(await status.textContent()).toContain(`+${ALPHA_RULES.CORRECT_POINTS} points · total ${ALPHA_RULES.CORRECT_POINTS} points · streak 1 day`);
    expect(await status.textContent()).toContain('New badge: First practice');

    // A second answer, wrong, that also reaches the daily target of 20 minutes: the bonus, no answer points.
    await page.getByLabel('Minutes spent').fill('8');
    await page.getByRole('button', { name: 'I got it wrong' }).click();
    const second = page.getByRole('status').filter({ hasText: 'Recorded as wrong' });
    await second.waitFor();
    const twice = nextMastery(once, false);
    const total = ALPHA_RULES.CORRECT_POINTS + ALPHA_RULES.DAILY_TARGET_BONUS;
    expect(await second.textContent()).toContain(`${percent(once)} → ${percent(twice)}`);
    expect(await second.textContent()).toContain(`+${ALPHA_RULES.DAILY_TARGET_BONUS} points · total ${total} points`);
    // The student is told where points came from on a wrong answer.
    await second
      .getByRole('listitem')
      .filter({ hasText: `+${ALPHA_RULES.DAILY_TARGET_BONUS}: Daily target of 20 minutes reached` })
      .waitFor();
    await shot(page, 'practised');
    expect(await seriousViolations(page)).toEqual([]);

    // Back on the list, the bar and the totals show the new numbers, as the school's API does.
    await page.getByRole('button', { name: 'Back to my practice' }).click();
    await page.getByRole('heading', { name: 'Practice', level: 2 }).waitFor();
    expect(await page.getByRole('progressbar', { name: 'Mastery of Halves and quarters' }).getAttribute('value')).toBe(String(Math.round(twice * 100)));
    await page
      .locator('section.learner-alpha dd')
      .filter({ hasText: String(total) })
      .waitFor();
    await page.locator('.learner-alpha-badges').getByText('First practice').waitFor();
    const school = data<{ total: number; streak_days: number }>(await v1.get(key, `/alpha/students/${state.studentId}/points`), 'points');
    expect(school).toMatchObject({ total, streak_days: 1 });
    expect(errors).toEqual([]);
    await close();
  });

  it('fits a 390 px phone: nothing runs off the side, and axe finds nothing serious', async () => {
    const { page, errors, close } = await open(390);
    await page.locator('section.learner-alpha').getByRole('heading', { name: 'Fractions', level: 3 }).waitFor();
    await page.locator('section.learner-alpha').scrollIntoViewIfNeeded();
    expect(await horizontalOverflow(page)).toBe(0);
    await shot(page, 'phone');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Practise Equivalent fractions' }).click();
    await page.getByRole('heading', { name: 'Practise: Equivalent fractions' }).waitFor();
    expect(await horizontalOverflow(page)).toBe(0);
    await shot(page, 'phone-practice');
    expect(errors).toEqual([]);
    await close();
  });
});
