// @tier integration
// @databases sqlite, postgres
// Process roles (docs/decisions/process-roles.md): an api process serves HTTP and sends nothing, a
// worker serves only /healthz and runs webhooks, mail and jobs, both on one data folder. Every
// request, webhook deliveries included, goes to 127.0.0.1.
import { spawn, spawnSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { environmentWithFlags, loadConfig, type Config } from '../server/config.js';
import { childEnv, killBundles, MAIN_BUNDLE, repoRoot, startBundle } from './helpers/bundle.js';
import { makeDataDir, makeInstitution, makeKey, startTestAppliance } from './helpers/appliance.js';
import { waitFor } from './helpers/wait.js';

const webhooks: Config['webhooks'] = { retryScheduleSeconds: [1, 1, 1, 1, 1], sweepSeconds: 1, timeoutMs: 1_500 };

afterAll(() => killBundles());

describe('--role and ROLE', () => {
  it('default to all; ROLE sets the role and --role wins over it', () => {
    expect(loadConfig({}).role).toBe('all');
    expect(loadConfig({ ROLE: 'api' }).role).toBe('api');
    expect(loadConfig(environmentWithFlags(['--role', 'worker'], { ROLE: 'api' })).role).toBe('worker');
    expect(loadConfig(environmentWithFlags(['--role=api'], { ROLE: 'worker' })).role).toBe('api');
    expect(loadConfig(environmentWithFlags([], { ROLE: 'worker' })).role).toBe('worker');
  });

  it('refuse a role that is not one, a --role without a value and any other argument, with a clear message', () => {
    expect(() => loadConfig({ ROLE: 'scheduler' })).toThrow('invalid configuration: ROLE: must be api, worker or all (--role or ROLE)');
    expect(() => loadConfig(environmentWithFlags(['--role', 'both'], {}))).toThrow('ROLE: must be api, worker or all');
    expect(() => environmentWithFlags(['--role'], {})).toThrow('--role needs a value: api, worker or all');
    expect(() => environmentWithFlags(['--port', '80'], {})).toThrow('unknown argument "--port"; the only option is --role api|worker|all');
  });

  it('stop node dist/server/main.js with exit 1 and the message for a bad --role', () => {
    const result = spawnSync(process.execPath, [MAIN_BUNDLE, '--role', 'everything'], {
      cwd: repoRoot,
      env: childEnv({ HOST: '127.0.0.1', PORT: '0', DATA_DIR: makeDataDir() }),
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('ROLE: must be api, worker or all (--role or ROLE)');
  });
});

describe('an api process and a worker on one data folder', () => {
  it('the api process takes the write and sends nothing; the worker delivers it, and serves only /healthz', { timeout: 30_000 }, async () => {
    const received: string[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push(body);
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

    const api = await startTestAppliance({ config: { role: 'api', outbound: { privateHosts: 'all' }, webhooks } });
    let worker: Awaited<ReturnType<typeof startTestAppliance>> | null = null;
    try {
      expect(api.ctx.webhooks).toBeUndefined();
      const inst = await makeInstitution(api);
      const key = await makeKey(api, inst);
      const endpoint = await api.http
        .post('/v1/webhooks/endpoints')
        .set('Authorization', key.auth)
        .send({ url: receiverUrl, events: ['student.created'] });
      expect(endpoint.status).toBe(200);
      const student = await api.http.post('/v1/students').set('Authorization', key.auth).send({ full_name: 'Ada Lovelace' });
      expect(student.status).toBe(200);
      // Longer than a sweep and a send would take in an `all` process: nothing leaves the api process.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(received).toEqual([]);
      const waiting = await api.ctx.db.models.WebhookDelivery.findAll();
      expect(waiting.map((row) => row.status)).toEqual(['pending']);
      // "Run now" in an api process runs the job here, recorded like any run.
      expect(await api.ctx.jobs!.run('prune-events')).toEqual({ name: 'prune-events', outcome: 'ok' });
      expect(await api.ctx.jobs!.run('no-such-job')).toBeNull();
      expect(api.logText()).toContain('"role":"api"');
      expect((await api.http.get('/healthz')).body).toMatchObject({ status: 'ok', role: 'api' });

      // The same database: the data folder's SQLite file, or in the postgres project the api's database.
      worker = await startTestAppliance({
        dataDir: api.dataDir,
        config: { role: 'worker', outbound: { privateHosts: 'all' }, webhooks, databaseUrl: api.ctx.config.databaseUrl },
      });
      await waitFor(() => received.length === 1, 'the worker to deliver the webhook', 10_000);
      expect(JSON.parse(received[0]!)).toMatchObject({ type: 'student.created', data: { student_id: student.body.data.id } });
      await waitFor(
        async () => (await api.ctx.db.models.WebhookDelivery.findAll()).map((row) => row.status).join() === 'succeeded',
        'the worker to record the delivery',
      );

      const health = await worker.http.get('/healthz');
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({ status: 'ok', database: 'ok', role: 'worker' });
      for (const path of ['/v1/me', '/', '/portal/api/session', '/v1/openapi.json']) {
        const res = await worker.http.get(path).set('Authorization', key.auth);
        expect(res.status, path).toBe(404);
        expect(res.body, path).toMatchObject({ success: false, error: 'not_found' });
      }
      expect((await api.http.get('/v1/me').set('Authorization', key.auth)).status).toBe(200);
    } finally {
      await worker?.stop();
      await api.close();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });

  it.skipIf(process.platform === 'win32')(
    'npm start -- --role worker reaches the server, and SIGTERM to npm still stops it cleanly',
    { timeout: 150_000 },
    async () => {
      const npm = spawn('npm', ['start', '--', '--role', 'worker'], {
        cwd: repoRoot,
        env: childEnv({ HOST: '127.0.0.1', PORT: '0', DATA_DIR: makeDataDir(), ROLE: 'api' }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      npm.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      npm.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
      try {
        const [, origin] = await waitFor(() => output.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/), 'the start line', {
          timeoutMs: 120_000,
          context: () => output,
        });
        expect(output).toContain('CampusBridge worker listening on');
        expect(await (await fetch(`${origin}/healthz`)).json()).toMatchObject({ role: 'worker' });
        expect((await fetch(`${origin}/v1/me`)).status).toBe(404);
        npm.kill('SIGTERM');
        await exited;
        await waitFor(() => output.includes('"msg":"stopped"'), 'the server to say it stopped', { timeoutMs: 10_000, context: () => output });
      } finally {
        if (npm.exitCode === null && npm.signalCode === null) npm.kill('SIGKILL');
      }
    },
  );

  it('node dist/server/main.js --role worker beats ROLE=api, says so at start and answers only /healthz', { timeout: 30_000 }, async () => {
    const dataDir = makeDataDir();
    const server = await startBundle(dataDir, { ROLE: 'api' }, ['--role', 'worker']);
    try {
      expect(server.stdout()).toContain('CampusBridge worker listening on');
      expect(server.stdout()).toContain('"role":"worker"');
      const health = await fetch(`${server.origin}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ role: 'worker' });
      expect((await fetch(`${server.origin}/v1/me`)).status).toBe(404);
    } finally {
      // With the server's output: the flake hunt saw this stop end in the test's SIGKILL once, under load.
      expect(await server.stop(), server.output()).toEqual({ code: 0, signal: null });
    }
  });
});
