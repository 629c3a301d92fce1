// @tier system
// @databases sqlite: the built server as a process on DATA_DIR, whose SQLite file it opens
// The real process of docs/api.md#base-url-and-versioning: `node dist/server/main.js` with HOST/PORT/DATA_DIR, the start
// line, the CLI acting on a running server's DATA_DIR, and a clean stop on SIGTERM.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDataDirs } from './helpers/appliance.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MAIN_BUNDLE = path.join(root, 'dist', 'server', 'main.js');
const CLI_BUNDLE = path.join(root, 'dist', 'server', 'cli.js');
const LISTENING = /listening on (http:\/\/127\.0\.0\.1:\d+)/;
const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 10_000;

const children = new Set<ChildProcess>();
const makeDataDir = tempDataDirs('campusbridge-proc-');

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** This process's environment without appliance settings that could leak in, plus the given ones. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['DATABASE_URL', 'RATE_LIMIT_STORE', 'HOST', 'PORT', 'LOG_LEVEL', 'DATA_DIR', 'WEBHOOK_RETRY_SCHEDULE']) delete env[name];
  return { ...env, ...extra };
}

function cli(dataDir: string, ...argv: string[]): any {
  const result = spawnSync(process.execPath, [CLI_BUNDLE, ...argv], {
    cwd: root,
    env: childEnv({ DATA_DIR: dataDir }),
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`cli ${argv.join(' ')} exited ${result.status}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

interface Server {
  child: ChildProcess;
  origin: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<Exit>;
  /** Resolves once stdout holds a line matching the pattern; rejects after the timeout or on exit. */
  waitForStdout: (pattern: RegExp, timeoutMs?: number) => Promise<RegExpMatchArray>;
}

interface Spawned {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<Exit>;
}

function spawnMain(env: Record<string, string>): Spawned {
  const child = spawn(process.execPath, [MAIN_BUNDLE], { cwd: root, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, stdout: () => out, stderr: () => err, exited };
}

function waitFor<T>(spawned: Spawned, check: () => T | null | undefined, what: string, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let done = false;
    const finish = (fn: () => void) => {
      if (done) return;
      done = true;
      clearInterval(poll);
      clearTimeout(timer);
      fn();
    };
    const poll = setInterval(() => {
      const value = check();
      if (value) finish(() => resolve(value));
    }, 25);
    const timer = setTimeout(
      () => finish(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}\nstdout:\n${spawned.stdout()}\nstderr:\n${spawned.stderr()}`))),
      timeoutMs,
    );
    void spawned.exited.then((exit) => {
      // one last look: the output may have arrived with the exit
      const value = check();
      if (value) finish(() => resolve(value));
      else
        finish(() =>
          reject(new Error(`process exited (${exit.code ?? exit.signal}) before ${what}\nstdout:\n${spawned.stdout()}\nstderr:\n${spawned.stderr()}`)),
        );
    });
  });
}

async function startServer(dataDir: string): Promise<Server> {
  const spawned = spawnMain({ HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info' });
  const waitForStdout = (pattern: RegExp, timeoutMs = START_TIMEOUT_MS) =>
    waitFor(spawned, () => spawned.stdout().match(pattern), `stdout ${pattern}`, timeoutMs);
  try {
    const match = await waitForStdout(LISTENING);
    return { ...spawned, origin: match[1]!, waitForStdout };
  } catch (error) {
    spawned.child.kill('SIGKILL');
    throw error;
  }
}

/** Resolves with the exit, or rejects once the timeout passes (the process is then killed). */
function exitWithin(spawned: Spawned, timeoutMs: number): Promise<Exit> {
  return new Promise<Exit>((resolve, reject) => {
    const timer = setTimeout(() => {
      spawned.child.kill('SIGKILL');
      reject(new Error(`process did not exit within ${timeoutMs} ms\nstdout:\n${spawned.stdout()}\nstderr:\n${spawned.stderr()}`));
    }, timeoutMs);
    void spawned.exited.then((exit) => {
      clearTimeout(timer);
      resolve(exit);
    });
  });
}

function logLines(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function get(origin: string, pathname: string, key?: string): Promise<{ status: number; body: any; contentType: string; text: string }> {
  const res = await fetch(`${origin}${pathname}`, { headers: key ? { Authorization: `Bearer ${key}` } : {} });
  const text = await res.text();
  const contentType = res.headers.get('content-type') ?? '';
  let body: unknown = null;
  if (contentType.includes('json')) body = JSON.parse(text);
  return { status: res.status, body, contentType, text };
}

describe('process: node dist/server/main.js', () => {
  let dataDir: string;
  let server: Server;
  let institutionId: string;
  let firstKey: { key_id: string; key: string };

  beforeAll(async () => {
    dataDir = makeDataDir();
    const setup = cli(dataDir, 'setup', '--institution', 'Process School', '--admin-email', 'ops@process.example', '--admin-password', 'correct horse battery');
    institutionId = setup.institution.id;
    firstKey = cli(dataDir, 'key', 'create', '--institution', institutionId, '--name', 'first', '--scopes', 'all');
    server = await startServer(dataDir);
  });

  afterAll(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
  });

  it('prints the start line with the real address and serves /v1/me to a key made by the CLI', async () => {
    expect(server.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(Number(server.origin.split(':').pop())).toBeGreaterThan(0);
    const me = await get(server.origin, '/v1/me', firstKey.key);
    expect(me.status).toBe(200);
    expect(me.body.success).toBe(true);
    expect(me.body.data.key_id).toBe(firstKey.key_id);
    expect(me.body.data.institution.id).toBe(institutionId);
  });

  it('sees a key revoked by the CLI on the very next request', async () => {
    expect((await get(server.origin, '/v1/me', firstKey.key)).status).toBe(200);
    const revoked = cli(dataDir, 'key', 'revoke', firstKey.key_id);
    expect(revoked.status).toBe('revoked');
    const res = await get(server.origin, '/v1/me', firstKey.key);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: false, error: 'invalid_api_key' });
  });

  it('sees an institution suspended and re-approved by the CLI at once', async () => {
    const second = cli(dataDir, 'key', 'create', '--institution', institutionId, '--name', 'second', '--scopes', 'students:read');
    expect((await get(server.origin, '/v1/me', second.key)).status).toBe(200);

    expect(cli(dataDir, 'institution', 'suspend', institutionId).status).toBe('suspended');
    const suspended = await get(server.origin, '/v1/me', second.key);
    expect(suspended.status).toBe(401);
    expect(suspended.body).toMatchObject({ success: false, error: 'invalid_api_key' });

    expect(cli(dataDir, 'institution', 'approve', institutionId).status).toBe('approved');
    const back = await get(server.origin, '/v1/me', second.key);
    expect(back.status).toBe(200);
    expect(back.body.data.key_id).toBe(second.key_id);
  });

  it('answers a key of a pending institution with 403 institution_not_approved', async () => {
    const pending = cli(dataDir, 'institution', 'create', '--name', 'Pending Process School');
    const key = cli(dataDir, 'key', 'create', '--institution', pending.id, '--name', 'early', '--scopes', 'all');
    const res = await get(server.origin, '/v1/me', key.key);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ success: false, error: 'institution_not_approved' });
  });

  it('serves the OpenAPI document and the explorer without a key', async () => {
    const doc = await get(server.origin, '/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.contentType).toContain('application/json');
    expect(doc.body.openapi).toMatch(/^3\.1/);
    expect(doc.body.info.version).toBe('2026-09-14');

    for (const pathname of ['/v1/docs/', '/v1/docs']) {
      // fetch follows the explorer's redirect from /v1/docs to /v1/docs/, if any
      const docs = await get(server.origin, pathname);
      expect(docs.status, pathname).toBe(200);
      expect(docs.contentType, pathname).toContain('text/html');
    }
  });

  it('serves the portal at /', async () => {
    const portal = await get(server.origin, '/');
    expect(portal.status).toBe(200);
    expect(portal.contentType).toContain('text/html');
    expect(portal.text.toLowerCase()).toContain('<html');
  });

  it('stops on SIGTERM: exit 0 within 10 s, logging "stopped"', async () => {
    // a kept-alive connection from an earlier request must not hold the stop up
    expect((await get(server.origin, '/v1/openapi.json')).status).toBe(200);
    expect(server.child.kill('SIGTERM')).toBe(true);
    const exit = await exitWithin(server, STOP_TIMEOUT_MS);
    expect(exit).toEqual({ code: 0, signal: null });
    const messages = logLines(server.stdout()).map((line) => line.msg);
    expect(messages).toContain('stopping');
    expect(messages).toContain('stopped');
    expect(messages.indexOf('stopping')).toBeLessThan(messages.indexOf('stopped'));
    // and it no longer accepts connections
    await expect(fetch(`${server.origin}/v1/openapi.json`)).rejects.toThrow();
  });

  it('never logs a full key', () => {
    expect(server.stdout()).not.toMatch(/cb_live_[A-Za-z0-9]{32}/);
    expect(server.stderr()).not.toMatch(/cb_live_[A-Za-z0-9]{32}/);
  });
});

describe('process: in-flight request at SIGTERM', () => {
  it('finishes a request that was already being received, then exits 0', async () => {
    const dataDir = makeDataDir();
    const setup = cli(
      dataDir,
      'setup',
      '--institution',
      'Inflight School',
      '--admin-email',
      'ops@inflight.example',
      '--admin-password',
      'correct horse battery',
    );
    const key = cli(dataDir, 'key', 'create', '--institution', setup.institution.id, '--name', 'inflight', '--scopes', 'all');
    const server = await startServer(dataDir);
    const socket = new net.Socket();
    try {
      const { port } = new URL(server.origin);
      await new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.connect(Number(port), '127.0.0.1', () => {
          socket.off('error', reject);
          resolve();
        });
      });
      let received = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => {
        received += chunk;
      });
      socket.on('error', () => {});
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));

      // Headers with Expect: 100-continue; the server answers "100 Continue" once it has parsed them,
      // which proves the request is in flight before the signal is sent. The body follows after SIGTERM.
      const body = JSON.stringify({
        default_ai_policy: { allowed: true, model_tier: 'standard', max_interactions: 5 },
        default_proctoring: { camera: false, screen: true },
        allowed_toolchains: ['python-3.12'],
        toolchain_mirror: null,
        lms: { name: 'Moodle' },
      });
      socket.write(
        [
          'PUT /v1/institution/config HTTP/1.1',
          `Host: 127.0.0.1:${port}`,
          `Authorization: Bearer ${key.key}`,
          'Content-Type: application/json',
          `Content-Length: ${Buffer.byteLength(body)}`,
          'Expect: 100-continue',
          '',
          '',
        ].join('\r\n'),
      );
      await waitFor(server, () => /^HTTP\/1\.1 100 Continue\r\n\r\n/.test(received), '100 Continue', 10_000);

      server.child.kill('SIGTERM');
      await server.waitForStdout(/"msg":"stopping"/, 5_000);
      socket.write(body);

      await waitFor(server, () => /HTTP\/1\.1 200 OK[\s\S]*\r\n\r\n[\s\S]*"success":true/.test(received), 'the 200 response', 8_000);
      expect(received).toContain('"python-3.12"');
      socket.end();

      const exit = await exitWithin(server, STOP_TIMEOUT_MS);
      expect(exit).toEqual({ code: 0, signal: null });
      expect(logLines(server.stdout()).map((line) => line.msg)).toContain('stopped');
      await closed;
    } finally {
      socket.destroy();
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    }

    // the change made by the in-flight request was committed
    const restarted = await startServer(dataDir);
    try {
      const res = await get(restarted.origin, '/v1/institution/config', key.key);
      expect(res.status).toBe(200);
      expect(res.body.data.allowed_toolchains).toEqual(['python-3.12']);
    } finally {
      restarted.child.kill('SIGTERM');
      await exitWithin(restarted, STOP_TIMEOUT_MS);
    }
  });
});

describe('process: start failures', () => {
  it('exits non-zero with an error on stderr when PORT is taken', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve, reject) => {
      blocker.once('error', reject);
      blocker.listen(0, '127.0.0.1', () => resolve());
    });
    try {
      const { port } = blocker.address() as net.AddressInfo;
      const spawned = spawnMain({ HOST: '127.0.0.1', PORT: String(port), DATA_DIR: makeDataDir(), LOG_LEVEL: 'info' });
      const exit = await exitWithin(spawned, START_TIMEOUT_MS);
      expect(exit.code).not.toBe(0);
      expect(exit.code).not.toBeNull();
      expect(spawned.stderr()).toMatch(/EADDRINUSE|in use/i);
      expect(spawned.stdout()).not.toMatch(/listening on/);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  it.each([
    ['PORT', { PORT: 'abc' }],
    ['PORT', { PORT: '70000' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'chatty' }],
  ])('exits 1 with a message naming %s when the environment is invalid', async (name, bad) => {
    const spawned = spawnMain({ HOST: '127.0.0.1', PORT: '0', DATA_DIR: makeDataDir(), LOG_LEVEL: 'info', ...bad });
    const exit = await exitWithin(spawned, START_TIMEOUT_MS);
    expect(exit).toEqual({ code: 1, signal: null });
    expect(spawned.stderr()).toContain(name);
    expect(spawned.stdout()).not.toMatch(/listening on/);
  });
});
