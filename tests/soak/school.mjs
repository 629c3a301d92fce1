// The school the soak runs: made through the CLI (the appliance's first run, keys, the merit
// allowance, the SIS connection) and then through the API as an LMS sets one up (webhook
// endpoints, teachers, the exam's class, a coding exam with its starter archive, merit credits
// for the AI assistant). Mirrors tests/exam-loop.test.ts, which walks the same loop once.
import { randomBytes } from 'node:crypto';
import { cli, createKeys } from '../bench/appliance.mjs';
import { bearer, multipart, ok, request } from './client.mjs';

export const ADMIN = { email: 'soak-admin@example.org', password: 'soak-admin-password-1' };
/** The SIS secret goes to `oneroster connect` through the environment, never the command line. */
const SECRET_VAR = 'CAMPUSBRIDGE_SOAK_SIS_SECRET';

/**
 * Before the servers start: the institution and its admin (also the operator, who signs in to
 * the portal), one key each for the LMS, the graders and setup (6000 requests a minute, the
 * ceiling of one key), a merit allowance to credit from, and the OneRoster connection to `sis`.
 */
export async function setUpThroughCli(env, { graders, sis }) {
  const setup = await cli(env, 'setup', '--institution', 'Soak High', '--admin-email', ADMIN.email, '--admin-password', ADMIN.password);
  const institutionId = setup.institution.id;
  const [lms, setupKey, ...graderKeys] = await createKeys(env, institutionId, 2 + graders);
  await cli(env, 'merits', 'allowance', '--institution', institutionId, '--cents', '10000000');
  await cli(
    { ...env, [SECRET_VAR]: sis.clientSecret },
    'oneroster',
    'connect',
    '--institution',
    institutionId,
    '--url',
    sis.url,
    '--token-url',
    sis.tokenUrl,
    '--client-id',
    sis.clientId,
    '--client-secret-env',
    SECRET_VAR,
  );
  return { institutionId, keys: { lms, setup: setupKey, graders: graderKeys } };
}

/** Which events each receiver takes: the slow one only the exam day's, so its 16 sockets keep up. */
const SUBSCRIPTIONS = {
  instant: ['*'],
  slow: ['exam.*', 'submission.*'],
  flaky: ['student.*', 'group.*', 'exam.*', 'submission.*'],
};

/**
 * Through the API, once the servers answer: the three webhook endpoints first (so every event of
 * the day has its deliveries), then the teachers, `learners` students in one group, and a coding
 * exam for them, published and assigned, with its starter and sample tests uploaded; each
 * learner gets merit credit to pay for AI help.
 */
export async function setUpThroughApi({ origin, key, receivers, learners, graders }) {
  const auth = { headers: bearer(key) };
  const post = async (path, body, step) => ok(await request(origin, 'POST', path, { ...auth, body }), step);

  const endpoints = [];
  for (const receiver of receivers) {
    const created = await post(
      '/v1/webhooks/endpoints',
      { url: receiver.url, events: SUBSCRIPTIONS[receiver.name], description: `soak ${receiver.name}` },
      `endpoint ${receiver.name}`,
    );
    endpoints.push({ id: created.id, name: receiver.name, events: created.events, receiver });
  }

  const teachers = [];
  for (let t = 0; t < graders; t += 1) teachers.push(await post('/v1/faculty', { full_name: `Soak Teacher ${t}` }, 'teacher'));
  const students = [];
  for (let s = 0; s < learners; s += 1) {
    students.push(await post('/v1/students', { full_name: `Soak Learner ${s}`, student_id: `SOAK-L${s}` }, `learner ${s}`));
  }
  const group = await post('/v1/groups', { name: 'Soak coding class', faculty_id: teachers[0].id, student_ids: students.map((s) => s.id) }, 'group');

  const exam = await post(
    '/v1/exams',
    {
      faculty_id: teachers[0].id,
      title: 'Soak recursion lab',
      app: 'code',
      max_score: 100,
      time_limit_minutes: 60,
      ai_policy: { allowed: true, model_tier: 'standard', max_interactions: 1000 },
    },
    'exam',
  );
  const upload = async (name, bytes) =>
    ok(await request(origin, 'POST', `/v1/exams/${exam.id}/files`, { ...auth, body: multipart(name, bytes) }), `upload ${name}`);
  const starter = await upload('starter.zip', randomBytes(32 * 1024));
  const samples = await upload('sample-tests.zip', randomBytes(4 * 1024));
  ok(
    await request(origin, 'PATCH', `/v1/exams/${exam.id}`, {
      ...auth,
      body: { code_spec: { toolchain: 'python-3.12', starter: starter.ref, sample_tests: samples.ref, commands: { test: 'pytest -q' } } },
    }),
    'code_spec',
  );
  await post(`/v1/exams/${exam.id}/publish`, {}, 'publish');
  await post(`/v1/exams/${exam.id}/assignments`, { group_ids: [group.id] }, 'assign');
  for (const student of students) {
    await post('/v1/merits/credits', { email: student.login_email, amount_cents: 500, reason: 'AI help for the lab', ref: `soak-${student.id}` }, 'credit');
  }
  return { endpoints, teachers, students, groupId: group.id, examId: exam.id, starterSize: starter.size };
}
