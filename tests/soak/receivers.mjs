// The school's outside world on 127.0.0.1: three webhook receivers that count every delivery by
// its event id, and an emulated SIS serving OneRoster 1.2 for the roster sync.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { URLSearchParams } from 'node:url';

/** Failed answers the flaky receiver gives one event at most: its third attempt always succeeds. */
const FLAKY_MAX_FAILURES_PER_EVENT = 2;
const SLOW_ANSWER_MS = 2_000;

function listen(server) {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
}

function closeServer(server) {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(resolve));
}

/**
 * A webhook receiver. `instant` answers 200 at once; `slow` after 2 s; `flaky` answers 500 to
 * half of its attempts at random, but never a third time for one event, so with the soak's short
 * retry schedule (run.mjs) every event gets through and a missing one is a lost delivery, not
 * bad luck. The event id is the `X-Service-Event-Id` header (server/webhooks/engine.ts), the
 * same as `id` in the body. A retry after a 500 is not a duplicate: only 2xx answers count.
 */
export async function startReceiver(name, behaviour) {
  const stats = {
    name,
    behaviour,
    requests: 0,
    failedAnswers: 0,
    delivered: new Map(), // event id → 2xx answers given
    failedFor: new Map(), // event id → 500 answers given
    lagMs: [], // first success minus the event's created_at
    noId: 0,
  };
  const timers = new Set();
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      stats.requests += 1;
      const id = req.headers['x-service-event-id'];
      if (!id) {
        stats.noId += 1;
        res.writeHead(200).end('ok');
        return;
      }
      const answer = () => {
        if (behaviour === 'flaky' && (stats.failedFor.get(id) ?? 0) < FLAKY_MAX_FAILURES_PER_EVENT && Math.random() < 0.5) {
          stats.failedFor.set(id, (stats.failedFor.get(id) ?? 0) + 1);
          stats.failedAnswers += 1;
          res.writeHead(500, { 'content-type': 'text/plain' }).end('flaky receiver: try again');
          return;
        }
        const before = stats.delivered.get(id) ?? 0;
        stats.delivered.set(id, before + 1);
        if (before === 0) {
          try {
            stats.lagMs.push(Date.now() - Date.parse(JSON.parse(Buffer.concat(chunks).toString('utf8')).created_at));
          } catch {
            // no created_at: lag unknown for this one
          }
        }
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      };
      if (behaviour !== 'slow') return answer();
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer();
      }, SLOW_ANSWER_MS);
      timers.add(timer);
    });
  });
  const port = await listen(server);
  return {
    name,
    url: `http://127.0.0.1:${port}/hooks/${name}`,
    stats,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      await closeServer(server);
    },
  };
}

const ONEROSTER_BASE = '/ims/oneroster/rostering/v1p2';
const ONEROSTER_SCOPE = 'https://purl.imsglobal.org/spec/or/v1p2/scope/roster.readonly';

/**
 * A SIS with `users` people (one in 25 a teacher with a class of their own, one administrator, the
 * rest students spread over the classes), in the OneRoster 1.2 REST shape the appliance reads
 * (server/commands/oneroster/client.ts; the same shape as tests/helpers/oneroster-provider.ts,
 * which the soak cannot import): `POST /oauth/token` (client credentials, HTTP Basic), then
 * `GET …/users|classes|enrollments` paged by `limit`/`offset` with `X-Total-Count`.
 */
export async function startOneRosterProvider(users) {
  const clientId = 'campusbridge-soak';
  const clientSecret = randomBytes(12).toString('hex');
  const at = new Date(Date.now() - 86_400_000).toISOString();
  const teachers = Math.max(1, Math.round(users / 25));
  const students = users - teachers - 1;
  const org = { sourcedId: 'org-soak', type: 'org' };
  const person = (sourcedId, role, given, email, identifier) => ({
    sourcedId,
    status: 'active',
    dateLastModified: at,
    enabledUser: true,
    username: email.split('@')[0],
    givenName: given,
    familyName: 'Soak',
    email,
    identifier,
    userIds: [{ type: 'SIS', identifier }],
    roles: [{ roleType: 'primary', role, org }],
    primaryOrg: org,
  });
  const collections = { users: [], classes: [], enrollments: [] };
  for (let t = 0; t < teachers; t += 1) {
    collections.users.push(person(`t-${t}`, 'teacher', `Teacher${t}`, `teacher${t}@sis.soak.example`, `T${100_000 + t}`));
    collections.classes.push({
      sourcedId: `c-${t}`,
      status: 'active',
      dateLastModified: at,
      title: `Class ${t}`,
      classCode: `SOAK${t}`,
      classType: 'scheduled',
      school: org,
    });
    collections.enrollments.push({
      sourcedId: `e-t-${t}`,
      status: 'active',
      dateLastModified: at,
      user: { sourcedId: `t-${t}`, type: 'user' },
      class: { sourcedId: `c-${t}`, type: 'class' },
      school: org,
      role: 'teacher',
      primary: true,
    });
  }
  for (let s = 0; s < students; s += 1) {
    collections.users.push(person(`s-${s}`, 'student', `Pupil${s}`, `pupil${s}@sis.soak.example`, `S${100_000 + s}`));
    collections.enrollments.push({
      sourcedId: `e-s-${s}`,
      status: 'active',
      dateLastModified: at,
      user: { sourcedId: `s-${s}`, type: 'user' },
      class: { sourcedId: `c-${s % teachers}`, type: 'class' },
      school: org,
      role: 'student',
      primary: false,
    });
  }
  collections.users.push(person('a-0', 'administrator', 'Ada', 'admin@sis.soak.example', 'A1'));

  const tokens = new Set();
  const requests = { token: 0, pages: 0 };
  const json = (res, status, body, headers = {}) => res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (req.method === 'POST' && url.pathname === '/oauth/token') {
        requests.token += 1;
        const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
        const basic = Buffer.from(/^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '', 'base64').toString('utf8');
        const [id, secret] = basic.split(':').map((part) => decodeURIComponent(part ?? ''));
        if (form.get('grant_type') !== 'client_credentials') return json(res, 400, { error: 'unsupported_grant_type' });
        if (id !== clientId || secret !== clientSecret) return json(res, 401, { error: 'invalid_client' });
        if (!(form.get('scope') ?? '').split(' ').includes(ONEROSTER_SCOPE)) return json(res, 400, { error: 'invalid_scope' });
        const token = randomBytes(16).toString('hex');
        tokens.add(token);
        return json(res, 200, { access_token: token, token_type: 'bearer', expires_in: 3600, scope: ONEROSTER_SCOPE });
      }
      const collection = url.pathname.startsWith(`${ONEROSTER_BASE}/`) ? url.pathname.slice(ONEROSTER_BASE.length + 1) : null;
      if (req.method !== 'GET' || !collections[collection]) return json(res, 404, { imsx_codeMajor: 'failure', imsx_description: 'not found' });
      if (!tokens.has(/^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1])) return json(res, 401, { imsx_codeMajor: 'failure' });
      requests.pages += 1;
      let records = collections[collection];
      // A delta sync asks for `dateLastModified>'…'`; everything here was modified at `at`.
      const since = /^dateLastModified>'([^']*)'$/.exec(url.searchParams.get('filter') ?? '')?.[1];
      if (since) records = records.filter((record) => record.dateLastModified > since);
      const limit = Math.min(Number(url.searchParams.get('limit') ?? 100), 1000);
      const offset = Number(url.searchParams.get('offset') ?? 0);
      return json(res, 200, { [collection]: records.slice(offset, offset + limit) }, { 'x-total-count': String(records.length) });
    });
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    tokenUrl: `http://127.0.0.1:${port}/oauth/token`,
    clientId,
    clientSecret,
    counts: { users, students, teachers, classes: teachers },
    requests,
    close: () => closeServer(server),
  };
}
