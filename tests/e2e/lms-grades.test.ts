// @tier browser
// @databases sqlite: the portal in Chromium; what its pages call is proven on both databases by tests/oneroster-gradebook.test.ts and tests/lti-nrps.test.ts
/**
 * The portal's side of grade write-back and class lists, in Chromium: an admin turns on "Send grades to
 * the SIS" for a OneRoster 1.2 connection (the provider written from the 1EdTech specifications),
 * a grade shows on the submission's page as queued, then as the SIS has it once sent, and the
 * OneRoster page lists the result sent; on the LTI page, a link whose course offers its class list
 * (NRPS) is synced with "Sync class list", and the row says what it did. Screenshots go to
 * tests/artifacts/lms-grades/.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addPlatform, linkResourceLink } from '../../server/commands/lti/platforms.js';
import { onerosterGradebookJob } from '../../server/jobs/oneroster-gradebook.js';
import { writeApplianceSetting } from '../../server/settings/appliance-settings.js';
import { learnerSession, makeKey, startTestAppliance, type TestAppliance, type TestKey } from '../helpers/appliance.js';
import { chromiumAvailable, launchChromium, screenshotter, signInOnPage } from '../helpers/browser.js';
import { LTI, LtiPlatform } from '../helpers/lti-platform.js';
import { OneRosterProvider, seedSchool } from '../helpers/oneroster-provider.js';
import { ok, setUpPortal, type FirstRun } from '../helpers/portal.js';

const ADMIN = { institution: 'Northfield School', admin_email: 'it@northfield.test', admin_password: 'northfield admin pw' };

describe.skipIf(!chromiumAvailable())('Grades to the SIS and class lists from the LMS, in the portal', () => {
  let app: TestAppliance;
  let browser: Browser;
  let page: Page;
  let provider: OneRosterProvider;
  let lms: LtiPlatform;
  let firstRun: FirstRun;
  let key: TestKey;
  let submissionId = '';
  const shot = screenshotter('lms-grades');
  const pageErrors: string[] = [];

  const v1 = async <T>(method: 'get' | 'post', path: string, body: object = {}, auth?: string): Promise<T> => {
    const request = method === 'get' ? app.http.get(`/v1${path}`) : app.http.post(`/v1${path}`).send(body);
    const res = await request.set('Authorization', auth ?? key.auth);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body.data as T;
  };
  const portal = (method: 'put' | 'post', path: string, body: object) =>
    firstRun.agent[method](`/portal/api/institutions/${firstRun.institutionId}${path}`).set('X-CSRF-Token', firstRun.csrf).send(body);

  beforeAll(async () => {
    [app, browser, provider, lms] = await Promise.all([
      // The job that sends SIS results runs when the test says, so the page is seen before and after.
      startTestAppliance({
        config: { jobsOnSchedule: false, outbound: { privateHosts: 'all' }, webhooks: { retryScheduleSeconds: [1, 1, 1], sweepSeconds: 30, timeoutMs: 3000 } },
      }),
      launchChromium(),
      new OneRosterProvider().start(),
      LtiPlatform.start(),
    ]);
    await writeApplianceSetting(app.ctx.db, 'outbound_private_hosts', 'all');
    seedSchool(provider, { students: 2, teachers: 1, classes: 1 });
    firstRun = await setUpPortal(app, ADMIN);
    key = await makeKey(app, firstRun.institution, { scopes: ['all'] });
    ok(
      await portal('put', '/oneroster', {
        url: provider.url,
        token_url: provider.tokenUrl,
        client_id: provider.clientId,
        client_secret: provider.clientSecret,
      }),
    );
    expect(ok<{ outcome: string }>(await portal('post', '/oneroster/sync', {})).outcome).toBe('applied');

    // A synced student sits an exam assigned to the synced class.
    const teacher = (await v1<{ items: Array<{ id: string }> }>('get', '/faculty')).items[0]!;
    const group = (await v1<{ items: Array<{ id: string }> }>('get', '/groups')).items[0]!;
    const exam = await v1<{ id: string }>('post', '/exams', { faculty_id: teacher.id, title: 'Fractions quiz', app: 'learning', max_score: 10 });
    await v1('post', `/exams/${exam.id}/publish`);
    await v1('post', `/exams/${exam.id}/assignments`, { group_ids: [group.id] });
    const identifier = provider.users.find((user) => user.sourcedId === 's-0')!.identifier;
    const student = (await v1<{ items: Array<{ login_email: string }> }>('get', `/students?student_id=${encodeURIComponent(identifier)}`)).items[0]!;
    const session = `Bearer ${await learnerSession(app, key, student)}`;
    const attempt = await v1<{ id: string }>('post', `/app/exams/${exam.id}/attempts`, {}, session);
    submissionId = (await v1<{ id: string }>('post', `/app/attempts/${attempt.id}/submit`, { answers: { text: 'three quarters' } }, session)).id;

    // An LMS course whose class list the platform serves, linked to the same exam.
    const platform = await addPlatform(firstRun.institution.tenant, {
      name: 'Course LMS',
      issuer: lms.issuer,
      client_id: lms.clientId,
      deployment_ids: [lms.deploymentId],
      auth_url: lms.authUrl,
      token_url: lms.tokenUrl,
      jwks_url: lms.jwksUrl,
      provision_users: true,
    });
    lms.toolJwksUrl = `${app.origin}/lti/jwks`;
    await linkResourceLink(firstRun.institution.tenant, platform.id, 'rl-fractions', exam.id, { title: 'Fractions quiz (LMS)' });
    lms.contexts.set('course-7', {
      id: 'course-7',
      title: 'Maths 7',
      members: [
        { user_id: 'lms-ida', roles: [LTI.learner], name: 'Ida Noddack', email: 'ida@family.example' },
        { user_id: 'lms-otto', roles: [LTI.learner], name: 'Otto Hahn', email: 'otto@family.example' },
      ],
    });
    // What an instructor's launch stores on the link (tests/lti-nrps.test.ts launches for it).
    await app.ctx.db.models.LtiResourceLink.update(
      { memberships_url: lms.membershipsUrl('course-7'), context_title: 'Maths 7' },
      { where: { platform_id: platform.id, resource_link_id: 'rl-fractions' } },
    );

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(30_000);
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
  }, 120_000);
  afterAll(async () => {
    expect(pageErrors).toEqual([]);
    await browser?.close();
    await Promise.all([app?.close(), provider?.close(), lms?.close()]);
  });
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail' && page) await shot(page, `failed-${context.task.name.replace(/\W+/g, '-')}`);
  });

  const main = () => page.getByRole('main');

  it('turns on "Send grades to the SIS"; a grade shows as queued on the submission, then as the SIS has it', async () => {
    await signInOnPage(page, app.origin, ADMIN.admin_email, ADMIN.admin_password);
    await page.getByRole('link', { name: 'OneRoster' }).click();
    await main().getByRole('heading', { name: 'OneRoster', exact: true }).waitFor();
    await main().getByLabel('Send grades to the SIS').check();
    await main().getByRole('button', { name: 'Save connection' }).click();
    await expect.poll(async () => (await app.ctx.db.models.OneRosterConnection.findOne())?.gradebook_writeback).toBe(true);

    await v1('post', `/submissions/${submissionId}/grade`, { score: 8, feedback: 'Right, and simplified.' });
    await page.goto(`${app.origin}/#/i/${firstRun.institutionId}/submissions/${submissionId}`);
    await main().getByRole('heading', { name: 'In the LMS and the SIS' }).waitFor();
    const standing = main();
    await standing.getByText('Queued', { exact: true }).waitFor();
    await shot(page, 'grade-queued');

    expect(await onerosterGradebookJob.run(app.ctx)).toMatchObject({ sent: 1, failed: 0 });
    await page.reload();
    await standing.getByText('Delivered', { exact: true }).waitFor();
    await standing
      .getByText(/SIS has 8/)
      .first()
      .waitFor();
    await shot(page, 'grade-delivered');
  });

  it('the OneRoster page lists the result sent to the SIS', async () => {
    await page.getByRole('link', { name: 'OneRoster' }).click();
    const sent = main().getByRole('table', { name: 'Grades sent to the SIS' });
    await sent.getByRole('row', { name: /s-0 .* 8 Sent/ }).waitFor();
    await shot(page, 'sis-posts');
  });

  it('on the LTI page, "Sync class list" fills the exam\'s group from the course and says what it did', async () => {
    await page.getByRole('link', { name: 'LTI' }).click();
    const links = main().getByRole('table', { name: 'LMS links' });
    const row = links.getByRole('row', { name: /Fractions quiz \(LMS\)/ });
    await row.getByText('Never synced').waitFor();
    await row.getByRole('button', { name: 'Sync class list' }).click();
    await row.getByText('Synced').waitFor();
    await row.getByText('2 in the course: 2 added to the group, 0 removed, 2 created, 0 skipped.').waitFor();
    await shot(page, 'class-list-synced');
    // The SIS's class keeps its students: the course got a group of its own, assigned to the same exam.
    const groups = await v1<{ items: Array<{ id: string; name: string; student_count: number }> }>('get', '/groups');
    expect(groups.items.map((group) => [group.name, group.student_count]).sort()).toEqual([
      ['Class 0', 2],
      ['Maths 7', 2],
    ]);
    const course = await v1<{ members: Array<{ full_name: string }> }>('get', `/groups/${groups.items.find((group) => group.name === 'Maths 7')!.id}`);
    expect(course.members.map((member) => member.full_name).sort()).toEqual(['Ida Noddack', 'Otto Hahn']);
  });
});
