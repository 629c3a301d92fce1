// @tier browser
// @databases sqlite: the portal in Chromium; what its pages call is proven on both databases by the integration suites
/**
 * The learner page in Chromium: the LMS mints a launch link, the student's browser opens it, sees
 * the exams assigned to them, and the page loads none of the admin portal's code. Then the exam a
 * student takes (docs/decisions/learner-exam-and-seats.md): the teacher's Markdown instructions rendered safely, a coding exam's
 * toolchain and commands, the time left surviving a reload, and the student's devices, one of
 * which they release. Last, a proctored coding exam taken end to end: archives downloaded and
 * checked, Chromium's fake camera and screen recorded and uploaded, AI help within the policy.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAllowance } from '../../server/commands/wallet/merits.js';
import {
  learnerSession,
  makeInstitution,
  makeKey,
  requestsAs,
  startTestAppliance,
  type TestAppliance,
  type TestInstitution,
  type TestKey,
} from '../helpers/appliance.js';
import { seriousViolations } from '../helpers/axe.js';
import { chromiumAvailable, launchChromium, screenshotter } from '../helpers/browser.js';

const INSTRUCTIONS = ['# Rules', '', 'Answer **every** question.', '', '<script>window.__pwned = true</script>'].join('\n');

describe.skipIf(!chromiumAvailable())('Learner page in Chromium', () => {
  let app: TestAppliance;
  let browser: Browser;
  let key: TestKey;
  let institution: TestInstitution;
  const v1 = requestsAs(() => app);
  const shot = screenshotter('learner');

  /** The answer's `data`, after checking the call succeeded. */
  const data = <T>(res: { status: number; body: { data: T } }, what: string): T => {
    expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body.data;
  };

  beforeAll(async () => {
    [app, browser] = await Promise.all([startTestAppliance(), launchChromium({ fakeMedia: 'allow' })]);
    institution = await makeInstitution(app);
    key = await makeKey(app, institution, { scopes: ['all'] });
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
    context.setDefaultTimeout(30_000);
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
    context.setDefaultTimeout(30_000);
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

  it('takes a proctored coding exam: archives checked, camera and screen recorded, AI help within the policy', async () => {
    const teacher = data<{ id: string }>(await v1.post(key, '/faculty', { full_name: 'Barbara Liskov' }), 'faculty');
    const student = data<{ id: string; login_email: string }>(await v1.post(key, '/students', { full_name: 'Grace Hopper' }), 'student');
    const group = data<{ id: string }>(await v1.post(key, '/groups', { name: 'CS 201', faculty_id: teacher.id, student_ids: [student.id] }), 'group');
    const exam = data<{ id: string }>(
      await v1.post(key, '/exams', {
        faculty_id: teacher.id,
        title: 'Linked lists, proctored',
        app: 'code',
        description: '## Task\n\nImplement `reverse(head)` in **linked.py**.',
        time_limit_minutes: 30,
        proctoring: { camera: true, screen: true },
      }),
      'exam',
    );
    // The integrator uploads the archives, names them in the code_spec, stores the key, publishes.
    const archives = {
      'starter.zip': 'def reverse(head):\n    pass\n',
      'sample-tests.zip': 'assert reverse(None) is None\n',
      'hidden-tests.zip.enc': 'sealed',
    };
    const refs: Record<string, { ref: string; sha256: string }> = {};
    for (const [name, text] of Object.entries(archives)) {
      const res = await app.http.post(`/v1/exams/${exam.id}/files`).set('Authorization', key.auth).attach('file', Buffer.from(text), name);
      refs[name] = data(res, `upload ${name}`);
    }
    data(
      await v1.patch(key, `/exams/${exam.id}`, {
        ai_policy: { allowed: true, model_tier: 'standard', max_interactions: 5 },
        code_spec: {
          toolchain: 'python-3.12',
          starter: refs['starter.zip']!.ref,
          sample_tests: refs['sample-tests.zip']!.ref,
          hidden_tests: { file: refs['hidden-tests.zip.enc']!.ref, iv_b64: 'q83vEjRWeJASNFZ4', sha256: refs['hidden-tests.zip.enc']!.sha256 },
          commands: { test: ['pytest -q'] },
          ai_policy: { allowed: true, model_tier: 'standard', max_interactions: 5 },
        },
      }),
      'code_spec',
    );
    data(await v1.put(key, `/exams/${exam.id}/code-secret`, { hidden_key_b64: Buffer.alloc(32, 7).toString('base64') }), 'key');
    data(await v1.post(key, `/exams/${exam.id}/publish`), 'publish');
    data(await v1.post(key, `/exams/${exam.id}/assignments`, { group_ids: [group.id] }), 'assign');
    await setAllowance(app.ctx.db, institution.id, 1000);
    data(await v1.post(key, '/merits/credits', { email: student.login_email, amount_cents: 500, reason: 'Term prize', ref: 'prize-gh' }), 'credit');
    const { launch_url: launchUrl } = data<{ launch_url: string }>(
      await v1.post(key, '/sso/tokens', { email: student.login_email, app: 'code', ttl_seconds: 120 }),
      'mint',
    );

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true, acceptDownloads: true });
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(launchUrl);
    await page.getByRole('button', { name: 'Open exam: Linked lists, proctored' }).click();
    await page.getByRole('heading', { name: 'Linked lists, proctored', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'Task', level: 4 }).waitFor();
    expect(await page.getByRole('timer').textContent()).toMatch(/^(30:00|29:\d\d)$/);
    await page.getByText('Allowed in the coding app, up to 5 questions').waitFor();

    // Each archive downloads, its checksum shown and checked in the page, and the bytes are the uploaded ones.
    const files = page.getByRole('region', { name: 'Files for this exam' });
    for (const [name, text] of Object.entries(archives)) {
      const item = files.getByRole('listitem').filter({ hasText: name });
      await item.getByText(refs[name]!.sha256).waitFor();
      const [download] = await Promise.all([page.waitForEvent('download'), item.getByRole('button', { name: `Download ${name}` }).click()]);
      expect(download.suggestedFilename()).toBe(name);
      const saved = fs.readFileSync(await download.path());
      expect(saved.toString()).toBe(text);
      expect(createHash('sha256').update(saved).digest('hex')).toBe(refs[name]!.sha256);
      await item.getByText('Checksum verified').waitFor();
    }

    // Proctoring: the fake camera and screen are recorded and sent in chunks.
    const proctoring = page.getByRole('region', { name: 'Proctoring' });
    await proctoring.getByRole('button', { name: 'Allow camera and screen and start recording' }).click();
    const atLeastTwoParts = /Recording\. ([2-9]|\d{2,}) parts sent/;
    await proctoring.getByTestId('recorder-camera').getByText(atLeastTwoParts).waitFor({ timeout: 30_000 });
    await proctoring.getByTestId('recorder-screen').getByText(atLeastTwoParts).waitFor({ timeout: 30_000 });
    await shot(page, 'proctored-coding-exam');
    expect(await seriousViolations(page)).toEqual([]);

    // The coding app asks the AI twice, within the policy; a third request over the limit is refused and costs nothing.
    const attempt = await app.ctx.db.models.Attempt.findOne({ where: { exam_id: exam.id } });
    const askAi = (interactions: number, costCents: number) =>
      page.evaluate(
        async ({ attemptId, interactions, costCents }) => {
          const session = JSON.parse(window.sessionStorage.getItem('campusbridge.learner_session') ?? '{}') as { session_token?: string };
          const res = await fetch('/v1/app/ai/usage', {
            method: 'POST',
            headers: { Authorization: `Bearer ${session.session_token}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({ attempt_id: attemptId, interactions, cost_cents: costCents }),
          });
          return { status: res.status, body: (await res.json()) as { data?: { interactions_total: number }; error?: string } };
        },
        { attemptId: attempt!.id, interactions, costCents },
      );
    expect((await askAi(2, 20)).status).toBe(200);
    expect((await askAi(1, 15)).body.data?.interactions_total).toBe(3);
    const refused = await askAi(3, 30);
    expect([refused.status, refused.body.error]).toEqual([409, 'conflict']);

    // A coding exam says leaving the window to run the tests is fine, and counts it; its editor is monospaced.
    await page.getByText("Run the starter's tests on your own computer as often as you like").waitFor();
    const editor = page.getByRole('textbox', { name: 'Your code' });
    expect(await editor.evaluate((element) => [getComputedStyle(element).fontFamily, element.getAttribute('spellcheck')])).toEqual([
      expect.stringMatching(/monospace/),
      'false',
    ]);
    // Tab indents the line (by four spaces) rather than leaving the editor.
    await editor.click();
    await page.keyboard.type('x');
    await page.keyboard.press('Tab');
    await expect.poll(() => editor.textContent()).toBe('    x');
    await editor.fill('def reverse(head):\n    prev = None\n    return prev');
    // Line numbers beside the code.
    await expect.poll(() => page.locator('.cm-lineNumbers .cm-gutterElement').allTextContents()).toEqual(expect.arrayContaining(['1', '2', '3']));

    // The solution file is handed in beside the typed code; a second choice of the same name replaces the first.
    const solution = 'def reverse(head):\n    prev = None\n    while head:\n        head.next, prev, head = prev, head, head.next\n    return prev\n';
    const handIn = page.getByRole('group', { name: 'Files to hand in' });
    await handIn.getByLabel(/Add files/).setInputFiles({ name: 'linked.py', mimeType: 'text/x-python', buffer: Buffer.from('draft') });
    await handIn.getByRole('listitem').filter({ hasText: 'linked.py' }).getByText('5 bytes, sent').waitFor();
    await handIn.getByLabel(/Add files/).setInputFiles({ name: 'linked.py', mimeType: 'text/x-python', buffer: Buffer.from(solution) });
    await handIn.getByRole('listitem').filter({ hasText: 'linked.py' }).getByText(`${solution.length} bytes, sent`).waitFor();
    expect(await handIn.getByRole('listitem').count()).toBe(1);
    await shot(page, 'coding-exam-file-handed-in');
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('heading', { name: 'Submitted' }).waitFor({ timeout: 20_000 });
    expect(errors).toEqual([]);
    await context.close();

    // The school's side: recordings (with submissions:write only), the recorded AI usage, the proctoring counts.
    const submission = data<{ items: Array<{ id: string }> }>(await v1.get(key, '/submissions', { exam_id: exam.id }), 'submissions').items[0]!;
    const detail = data<{
      ai_usage: { interactions: number; cost_cents: number };
      proctoring: { counts: Record<string, number> };
      recordings: Array<{ name: string; size: number; sha256: string; url: string }>;
      attachments: Array<{ name: string; size: number; sha256: string; url: string }>;
      answers: { text: string };
    }>(await v1.get(key, `/submissions/${submission.id}`), 'detail');
    expect(detail.answers.text).toContain('prev = None');
    expect(detail.attachments.map((file) => [file.name, file.size])).toEqual([['linked.py', solution.length]]);
    const handedIn = await fetch(detail.attachments[0]!.url);
    expect(await handedIn.text()).toBe(solution);
    expect(detail.ai_usage).toEqual({ interactions: 3, cost_cents: 35 });
    expect(detail.proctoring.counts.recorder_error).toBe(0);
    expect(detail.recordings.map((recording) => recording.name.split('-')[0]).sort()).toEqual(['camera', 'screen']);
    for (const recording of detail.recordings) {
      const res = await fetch(recording.url);
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(res.status).toBe(200);
      expect(bytes.length).toBe(recording.size);
      expect(bytes.length).toBeGreaterThan(1000);
      // A WebM file starts with the EBML magic number.
      expect(bytes.subarray(0, 4).toString('hex')).toBe('1a45dfa3');
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(recording.sha256);
    }
    const reader = await makeKey(app, institution, { scopes: ['submissions:read'] });
    expect(data<Record<string, unknown>>(await v1.get(reader, `/submissions/${submission.id}`), 'read-only detail')).not.toHaveProperty('recordings');
    const feed = data<{ counts: Record<string, number> }>(await v1.get(key, `/submissions/${submission.id}/events`), 'events');
    expect(feed.counts).toMatchObject({ recorder_error: 0 });
  });

  it('records a recorder_error when the student refuses the camera, and says so on the page', async () => {
    const teacher = data<{ id: string }>(await v1.post(key, '/faculty', { full_name: 'Barbara Liskov' }), 'faculty');
    const student = data<{ id: string; login_email: string }>(await v1.post(key, '/students', { full_name: 'Alan Kay' }), 'student');
    const group = data<{ id: string }>(await v1.post(key, '/groups', { name: 'CS 301', faculty_id: teacher.id, student_ids: [student.id] }), 'group');
    const exam = data<{ id: string }>(
      await v1.post(key, '/exams', {
        faculty_id: teacher.id,
        title: 'Camera-proctored quiz',
        proctoring: { camera: true, screen: false },
        publish: true,
        group_ids: [group.id],
      }),
      'exam',
    );
    const { launch_url: launchUrl } = data<{ launch_url: string }>(
      await v1.post(key, '/sso/tokens', { email: student.login_email, app: 'learning', ttl_seconds: 120 }),
      'mint',
    );
    const refusing = await launchChromium({ fakeMedia: 'deny' });
    try {
      const page = await refusing.newPage();
      page.setDefaultTimeout(30_000);
      await page.goto(launchUrl);
      await page.getByRole('button', { name: 'Open exam: Camera-proctored quiz' }).click();
      const proctoring = page.getByRole('region', { name: 'Proctoring' });
      await proctoring.getByRole('button', { name: 'Allow camera and start recording' }).click();
      await proctoring.getByTestId('recorder-camera').getByText('You did not allow camera').waitFor();
      await proctoring.getByRole('button', { name: 'Try again' }).waitFor();
      await shot(page, 'camera-refused');
    } finally {
      await refusing.close();
    }
    const attempt = await app.ctx.db.models.Attempt.findOne({ where: { exam_id: exam.id } });
    const events = await app.ctx.db.models.ProctoringEvent.findAll({ where: { attempt_id: attempt!.id } });
    expect(
      events.map((event) => [event.type, (event.detail as { source?: string; reason?: string }).source, (event.detail as { reason?: string }).reason]),
    ).toEqual([['recorder_error', 'camera', 'permission_refused']]);
    expect(await app.ctx.db.models.AttemptRecording.count({ where: { attempt_id: attempt!.id } })).toBe(0);
  });
});
