// The people of the school day, each an async loop against the API: the LMS polling events and
// lists, learners taking the coding exam, teachers grading, an admin reading the portal, and the
// SIS sync in the middle. Every loop ends at `day.stopAt` and after a fixed number of rounds, and
// every request has a timeout (client.mjs), so the day always ends.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { URLSearchParams } from 'node:url';
import { bearer, multipart, portalHeaders, timed } from './client.mjs';

const MAX_ROUNDS = 10_000;
/** Pages of 200 events read in one poll at most; the sync's thousands of events take a few polls. */
const MAX_PAGES_PER_POLL = 50;
const between = (low, high) => low + Math.random() * (high - low);
const running = (day) => performance.now() < day.stopAt;

/** Waits `ms`, or until the day ends if that comes first. */
async function pause(day, ms) {
  const left = Math.min(ms, day.stopAt - performance.now());
  if (left > 0) await sleep(left);
}

/** Waits until `at` (ms since the start of the day), or until the day ends. */
const until = (day, at) => pause(day, day.startedAt + at - performance.now());

/** A step that failed in a way its actor cannot go on from: kept for the report, the actor stops. */
function gaveUp(day, who, step, res) {
  day.problems.push({ who, step, status: res.status, body: (res.error ?? res.text ?? '').slice(0, 600) });
  return null;
}

/**
 * Reads the events feed from the LMS's cursor to its end (`has_more` false), as an LMS does
 * (docs/events.md). Every event is kept, for the webhook accounting; one seen twice is counted:
 * the feed must never repeat one.
 */
export async function readEventsToEnd(day, recorder = day.recorder) {
  const lms = day.lms;
  for (let page = 0; page < MAX_PAGES_PER_POLL; page += 1) {
    const query = new URLSearchParams({ limit: '200' });
    if (lms.cursor) query.set('since', lms.cursor);
    const res = await timed(recorder, 'LMS events poll', day.nextOrigin(), 'GET', `/v1/events?${query}`, { headers: bearer(day.keys.lms) });
    if (res.status !== 200) return false;
    for (const event of res.body.data.items) {
      if (lms.seen.has(event.id)) lms.repeated += 1;
      else {
        lms.seen.add(event.id);
        lms.events.push({ id: event.id, type: event.type, created_at: event.created_at });
      }
      lms.cursor = event.created_at;
    }
    if (!res.body.data.has_more) return true;
  }
  return false;
}

/** 1. The LMS: the events feed every 2–3 s. */
export async function lmsEventsPoller(day) {
  for (let round = 0; running(day) && round < MAX_ROUNDS; round += 1) {
    await readEventsToEnd(day);
    await pause(day, between(2_000, 3_000));
  }
}

/** 1. The LMS: the lists it mirrors, every 2–3 s. */
export async function lmsLists(day) {
  const lists = ['/v1/students?limit=100', '/v1/groups', '/v1/exams'];
  for (let round = 0; running(day) && round < MAX_ROUNDS; round += 1) {
    for (const path of lists) await timed(day.recorder, 'LMS lists', day.nextOrigin(), 'GET', path, { headers: bearer(day.keys.lms) });
    await pause(day, between(2_000, 3_000));
  }
}

/** A file a learner saves: a few KB of code. */
const solution = (learner, round) =>
  Buffer.concat([
    Buffer.from(`# learner ${learner}, save ${round}\ndef fact(n):\n    return 1 if n < 2 else n * fact(n - 1)\n`),
    randomBytes(Math.floor(between(2_000, 16_000))),
  ]);

/**
 * 3. One learner: launched from the LMS (launch token → session), opens the exam, starts the
 * attempt, downloads the starter, then saves a file every so often (with a proctoring event, and
 * AI help every third save) until `plan.submitAt`, and submits. As tests/exam-loop.test.ts does.
 */
export async function learner(day, student, index, plan) {
  const who = `learner ${index}`;
  const rec = day.recorder;
  const examId = day.examId;
  await until(day, plan.startAt);
  if (!running(day)) return;

  const minted = await timed(rec, 'learner launch', day.nextOrigin(), 'POST', '/v1/sso/tokens', {
    headers: bearer(day.keys.lms),
    body: { email: student.login_email, app: 'code', redirect: `exam:${examId}`, ttl_seconds: 120 },
  });
  if (minted.status !== 200) return gaveUp(day, who, 'mint launch token', minted);
  const token = new URL(minted.body.data.launch_url).searchParams.get('token');
  const exchanged = await timed(rec, 'learner launch', day.nextOrigin(), 'POST', '/v1/sso/exchange', {
    body: { token, device: { id: `soak-device-${index}`, name: `Learner ${index}'s laptop` } },
  });
  if (exchanged.status !== 200) return gaveUp(day, who, 'exchange launch token', exchanged);
  const session = bearer(exchanged.body.data.session_token);

  const exam = await timed(rec, 'learner reads', day.nextOrigin(), 'GET', `/v1/app/exams/${examId}`, { headers: session });
  if (exam.status !== 200) return gaveUp(day, who, 'open exam', exam);
  const attempt = await timed(rec, 'learner start', day.nextOrigin(), 'POST', `/v1/app/exams/${examId}/attempts`, { headers: session, body: {} });
  if (attempt.status !== 200) return gaveUp(day, who, 'start attempt', attempt);
  const attemptId = attempt.body.data.id;
  // The signed link opens once the attempt is open. It names the server that made it: only its
  // path is used, on one of the soak's own origins.
  const starter = exam.body.data.files.find((file) => file.kind === 'starter');
  const link = new URL(starter.url);
  const download = await timed(rec, 'learner download', day.nextOrigin(), 'GET', `${link.pathname}${link.search}`);
  if (download.status !== 200 || download.bytes !== starter.size)
    return gaveUp(day, who, `download starter (${download.bytes} of ${starter.size} bytes)`, download);

  const refs = [];
  for (let round = 0; running(day) && round < 200 && performance.now() < day.startedAt + plan.submitAt; round += 1) {
    await pause(day, Math.min(plan.saveEveryMs * between(0.7, 1.3), day.startedAt + plan.submitAt - performance.now()));
    if (!running(day) || performance.now() >= day.startedAt + plan.submitAt) break;
    const saved = await timed(rec, 'learner upload', day.nextOrigin(), 'POST', `/v1/app/attempts/${attemptId}/files`, {
      headers: session,
      body: multipart('solution.py', solution(index, round)),
    });
    if (saved.status === 200) refs.push(saved.body.data.ref);
    await timed(rec, 'learner proctoring', day.nextOrigin(), 'POST', `/v1/app/attempts/${attemptId}/events`, {
      headers: session,
      body: { events: [{ type: Math.random() < 0.5 ? 'focus_lost' : 'focus_gained', at: new Date().toISOString() }] },
    });
    if (round % 3 === 1) {
      await timed(rec, 'learner AI usage', day.nextOrigin(), 'POST', '/v1/app/ai/usage', {
        headers: session,
        body: { attempt_id: attemptId, interactions: 1, cost_cents: 3 },
      });
    }
  }
  // Submitted even when the day ends first: the day's last minute is when most hand in.
  const submitted = await timed(rec, 'learner submit', day.nextOrigin(), 'POST', `/v1/app/attempts/${attemptId}/submit`, {
    headers: session,
    body: { answers: { notes: `learner ${index} done` }, files: refs.slice(-3) },
  });
  if (submitted.status !== 200) return gaveUp(day, who, 'submit', submitted);
  day.submitted += 1;
  return submitted.body.data.id;
}

/** A stable share of the submissions per teacher, so two never grade the same one at once. */
const shareOf = (id, teachers) => [...id].reduce((sum, char) => sum + char.charCodeAt(0), 0) % teachers;

/** 4. One teacher: every 3–5 s, the submissions waiting (their share) and a grade for each. */
export async function grader(day, teacher, index, key) {
  const teachers = day.teachers.length;
  for (let round = 0; running(day) && round < MAX_ROUNDS; round += 1) {
    const waiting = await timed(day.recorder, 'grading reads', day.nextOrigin(), 'GET', `/v1/submissions?exam_id=${day.examId}&status=submitted&limit=50`, {
      headers: bearer(key),
    });
    const mine = waiting.status === 200 ? waiting.body.data.items.filter((submission) => shareOf(submission.id, teachers) === index) : [];
    for (const submission of mine) {
      if (!running(day)) break;
      const graded = await timed(day.recorder, 'grading', day.nextOrigin(), 'POST', `/v1/submissions/${submission.id}/grade`, {
        headers: bearer(key),
        body: { score: Math.round(between(40, 100)), feedback: 'Clean recursion; test the empty input.', graded_by: teacher.login_email },
      });
      if (graded.status === 200) day.graded += 1;
      await pause(day, between(300, 800)); // reading the next one
    }
    await pause(day, between(3_000, 5_000));
  }
}

/** 6. The admin in the portal: the students and deliveries lists and the charts, every 3–5 s. */
export async function portalReader(day) {
  const base = `/portal/api/institutions/${day.institutionId}`;
  for (let round = 0; running(day) && round < MAX_ROUNDS; round += 1) {
    const endpoint = day.endpoints[round % day.endpoints.length];
    const pages = [
      `${base}/students?limit=50`,
      `${base}/webhooks/deliveries?limit=50`,
      `${base}/stats/overview?days=7`,
      `${base}/stats/webhook-endpoints/${endpoint.id}?days=7`,
      `${base}/stats/licenses`,
    ];
    for (const path of pages) await timed(day.recorder, 'portal reads', day.nextOrigin(), 'GET', path, { headers: portalHeaders(day.portal) });
    await pause(day, between(3_000, 5_000));
  }
}

/**
 * 2. The SIS sync, started by the admin in the portal at `at` (confirmed, so the guard does not
 * hold it back). One request fetches the whole roster and applies it; its answer says what it did.
 */
export async function onerosterSync(day, at) {
  await until(day, at);
  if (!running(day)) return null;
  const res = await timed(day.recorder, 'writes: oneroster sync', day.nextOrigin(), 'POST', `/portal/api/institutions/${day.institutionId}/oneroster/sync`, {
    headers: portalHeaders(day.portal, true),
    body: { confirm: true },
    timeoutMs: 300_000,
  });
  if (res.status !== 200) return gaveUp(day, 'admin', 'oneroster sync', res);
  const result = res.body.data;
  return { ms: res.ms, outcome: result.outcome, created: result.created, reason: result.reason, at: (performance.now() - day.startedAt - res.ms) / 1000 };
}
