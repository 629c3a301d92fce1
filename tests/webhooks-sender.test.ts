// @tier integration
// @databases none
// postWebhook against real receivers. Network safety: every receiver listens on 127.0.0.1 port 0
// and every request goes to 127.0.0.1. Names are answered by injected resolvers, and the system
// resolver is replaced by a tripwire, so a regression cannot send a DNS query off this computer.
import dns from 'node:dns';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Resolver } from '../server/outbound/address.js';
import { postWebhook, RESPONSE_BODY_LIMIT, type SendRequest } from '../server/webhooks/sender.js';

interface Hit {
  method: string | undefined;
  url: string | undefined;
  headers: http.IncomingHttpHeaders;
  body: string;
  remoteAddress: string | undefined;
}

interface Receiver {
  port: number;
  url: string;
  hits: Hit[];
  close(): Promise<void>;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

const open: Receiver[] = [];

/** A receiver on 127.0.0.1, port 0, recording every request it gets. */
async function startReceiver(handler: Handler = (_req, res) => res.writeHead(204).end()): Promise<Receiver> {
  const hits: Hit[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      hits.push({ method: req.method, url: req.url, headers: req.headers, body, remoteAddress: req.socket.remoteAddress });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: Receiver = {
    port,
    url: `http://127.0.0.1:${port}/hooks/campusbridge`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  open.push(receiver);
  return receiver;
}

/** A port on 127.0.0.1 where nothing listens (taken from the OS, then released). */
async function closedPort(): Promise<number> {
  const receiver = await startReceiver();
  await receiver.close();
  open.splice(open.indexOf(receiver), 1);
  return receiver.port;
}

const EVENT_ID = 'evt_SenderTests000000000000000';
const BODY = JSON.stringify({
  id: EVENT_ID,
  type: 'student.created',
  created_at: '2026-09-14T08:00:00.000Z',
  institution_id: 'inst_SenderTests00000000000000',
  data: { student_id: 'stu_1', note: 'Zoë 🎓' },
});
const HEADERS = {
  'X-Service-Event-Id': EVENT_ID,
  'X-Service-Delivery-Id': 'dlv_SenderTests000000000000000',
  'X-Service-Signature': 't=1789372800,v1=00',
  'webhook-id': EVENT_ID,
  'webhook-timestamp': '1789372800',
  'webhook-signature': 'v1,AA==',
};

function send(overrides: Partial<SendRequest> & { url: string }) {
  return postWebhook({ body: BODY, headers: HEADERS, timeoutMs: 5000, privateHosts: 'all', ...overrides });
}

/** Lets a request that should not happen arrive, if it were going to. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 150));

// The tripwire passes IP literals through (getaddrinfo answers those without a query: listen()
// on 127.0.0.1 uses it) and refuses every name.
const realLookup = dns.lookup;
const namesAsked: string[] = [];
let systemLookup: ReturnType<typeof vi.spyOn>;
beforeAll(() => {
  systemLookup = vi.spyOn(dns, 'lookup').mockImplementation(((hostname: string, ...rest: unknown[]) => {
    if (net.isIP(hostname)) return (realLookup as (...args: unknown[]) => void)(hostname, ...rest);
    namesAsked.push(hostname);
    throw new Error(`the system resolver must not be asked for ${hostname} in these tests`);
  }) as never);
});
afterAll(() => {
  expect(namesAsked).toEqual([]);
  systemLookup.mockRestore();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((receiver) => receiver.close()));
});

describe('postWebhook', () => {
  it('POSTs the body and headers as given, with Content-Type and Content-Length', async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(202, { 'Content-Type': 'text/plain' }).end('queued'));
    const result = await send({ url: receiver.url });
    expect(result).toMatchObject({ ok: true, status: 202, body: 'queued', error: null });
    expect(result.timeMs).toBeGreaterThanOrEqual(0);
    expect(receiver.hits).toHaveLength(1);
    const [hit] = receiver.hits;
    expect(hit!.method).toBe('POST');
    expect(hit!.url).toBe('/hooks/campusbridge');
    expect(hit!.body).toBe(BODY);
    expect(hit!.remoteAddress).toBe('127.0.0.1');
    expect(hit!.headers['content-type']).toBe('application/json');
    expect(hit!.headers['content-length']).toBe(String(Buffer.byteLength(BODY)));
    for (const [name, value] of Object.entries(HEADERS)) expect(hit!.headers[name.toLowerCase()], name).toBe(value);
  });

  it('counts any 2xx as success', async () => {
    for (const status of [200, 201, 204, 299]) {
      const receiver = await startReceiver((_req, res) => res.writeHead(status).end());
      expect(await send({ url: receiver.url }), String(status)).toMatchObject({ ok: true, status, error: null });
    }
  });

  it('reports a non-2xx answer as a failure with its status and body', async () => {
    for (const status of [400, 404, 410, 500, 503]) {
      const receiver = await startReceiver((_req, res) => res.writeHead(status).end(`status ${status}`));
      expect(await send({ url: receiver.url }), String(status)).toEqual(
        expect.objectContaining({ ok: false, status, body: `status ${status}`, error: `http_${status}` }),
      );
    }
  });

  it('never follows a redirect: 302 is a failure and the target is never called', async () => {
    const target = await startReceiver();
    for (const status of [301, 302, 307, 308]) {
      const redirecting = await startReceiver((_req, res) => res.writeHead(status, { Location: target.url }).end());
      const result = await send({ url: redirecting.url });
      expect(result, String(status)).toMatchObject({ ok: false, status, error: 'redirect' });
      expect(redirecting.hits).toHaveLength(1);
    }
    await settle();
    expect(target.hits).toHaveLength(0);
  });

  it('gives up with timeout when the receiver never answers', async () => {
    const receiver = await startReceiver(() => {
      /* holds the request open */
    });
    const result = await send({ url: receiver.url, timeoutMs: 400 });
    // That it gives up at all is the point (a hang would fail the test's own timeout); that it
    // waited for the deadline first is the lower bound.
    expect(result).toMatchObject({ ok: false, status: null, body: null, error: 'timeout' });
    expect(result.timeMs).toBeGreaterThanOrEqual(390);
    expect(receiver.hits).toHaveLength(1);
  });

  it('gives up with timeout when the answer starts but its body stalls', async () => {
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('partial');
    });
    const result = await send({ url: receiver.url, timeoutMs: 400 });
    expect(result).toMatchObject({ ok: false, error: 'timeout' });
    expect(result.timeMs).toBeGreaterThanOrEqual(390);
  });

  it('keeps the first 2048 bytes of a 10 KB answer', async () => {
    const answer = 'abcdefghij'.repeat(1024);
    const receiver = await startReceiver((_req, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end(answer));
    const result = await send({ url: receiver.url });
    expect(RESPONSE_BODY_LIMIT).toBe(2048);
    expect(result).toMatchObject({ ok: true, status: 200, error: null });
    expect(result.body).toHaveLength(2048);
    expect(result.body).toBe(answer.slice(0, 2048));
  });

  it('stops reading an endless answer after 2048 bytes instead of waiting for the timeout', async () => {
    const receiver = await startReceiver((req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      const pump = setInterval(() => res.write('x'.repeat(512)), 5);
      res.on('close', () => clearInterval(pump));
      req.socket.on('close', () => clearInterval(pump));
    });
    const result = await send({ url: receiver.url, timeoutMs: 10_000 });
    // Had it waited for the deadline, the outcome would be `timeout`: ok proves it stopped reading.
    expect(result).toMatchObject({ ok: true, status: 200, error: null });
    expect(result.body).toHaveLength(2048);
  });

  it('reports connection_error when nothing listens on the port', async () => {
    const port = await closedPort();
    const result = await send({ url: `http://127.0.0.1:${port}/hook` });
    expect(result).toMatchObject({ ok: false, status: null, body: null });
    expect(result.error).toMatch(/^connection_error/);
    expect(result.error).toContain('ECONNREFUSED');
  });
});

describe('postWebhook SSRF rules at delivery time', () => {
  it('refuses a loopback URL with private_host when private hosts are not allowed; the receiver is never called', async () => {
    const receiver = await startReceiver();
    for (const url of [receiver.url, `http://2130706433:${receiver.port}/`, `http://0x7f.1:${receiver.port}/`, `http://[::ffff:127.0.0.1]:${receiver.port}/`]) {
      expect(await send({ url, privateHosts: 'off' }), url).toMatchObject({ ok: false, status: null, body: null, error: 'private_host' });
    }
    await settle();
    expect(receiver.hits).toHaveLength(0);
  });

  it('DNS rebinding: a name that now resolves to 127.0.0.1 is refused before any connection', async () => {
    const receiver = await startReceiver();
    const resolver = vi.fn<Resolver>(async () => [{ address: '127.0.0.1', family: 4 }]);
    const result = await send({ url: `http://rebind.test:${receiver.port}/hook`, privateHosts: 'off', resolver });
    expect(result).toMatchObject({ ok: false, status: null, error: 'private_host' });
    expect(resolver).toHaveBeenCalledTimes(1);
    expect(resolver).toHaveBeenCalledWith('rebind.test');
    await settle();
    expect(receiver.hits).toHaveLength(0);
  });

  it('a name that does not resolve is dns_error', async () => {
    const resolver = vi.fn<Resolver>(async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND gone.test'), { code: 'ENOTFOUND' });
    });
    expect(await send({ url: 'http://gone.test/hook', resolver })).toMatchObject({ ok: false, status: null, error: 'dns_error' });
  });

  it('pins the connection to the address that was checked: the resolver is asked exactly once', async () => {
    const receiver = await startReceiver((req, res) => res.writeHead(200).end(String(req.headers.host)));
    let calls = 0;
    // First answer: the local receiver. Any later question would get no address at all, so a
    // second lookup at connect time (the rebinding window) would fail the delivery.
    const resolver = vi.fn<Resolver>(async () => {
      calls += 1;
      if (calls === 1) return [{ address: '127.0.0.1', family: 4 }];
      throw new Error('rebound: a second lookup happened');
    });
    const result = await send({ url: `http://pinned.test:${receiver.port}/hook`, resolver });
    expect(result).toMatchObject({ ok: true, status: 200, error: null, body: `pinned.test:${receiver.port}` });
    expect(resolver).toHaveBeenCalledTimes(1);
    expect(receiver.hits).toHaveLength(1);
    expect(receiver.hits[0]!.headers.host).toBe(`pinned.test:${receiver.port}`);
    expect(receiver.hits[0]!.remoteAddress).toBe('127.0.0.1');
  });
});

describe('scheme at delivery time', () => {
  it('refuses plain http when private hosts are not allowed, whatever the endpoint was created with', async () => {
    const { default: nodeHttp } = await import('node:http');
    // No connection may be attempted: a regression fails here instead of sending anything.
    const request = vi.spyOn(nodeHttp, 'request').mockImplementation(() => {
      throw new Error('a connection was attempted');
    });
    try {
      const { postWebhook } = await import('../server/webhooks/sender.js');
      const result = await postWebhook({
        url: 'http://lms.public.test/hook',
        body: '{}',
        headers: {},
        timeoutMs: 500,
        privateHosts: 'off',
        resolver: async () => [{ address: '2001:4860:4860::8888', family: 6 }],
      });
      expect(result).toMatchObject({ ok: false, status: null, error: 'https_required' });
      expect(request).not.toHaveBeenCalled();
    } finally {
      request.mockRestore();
    }
  });
});
