// @tier integration
// @databases none
// requestPinned, the one outbound requester of webhooks, LTI and OneRoster, against real servers
// on 127.0.0.1 port 0. Every request goes to 127.0.0.1; names are answered by an injected
// resolver, so no DNS query leaves this computer.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Resolver } from '../server/outbound/address.js';
import { requestPinned, type PinnedRequest } from '../server/outbound/pinned-request.js';

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

/** A server on 127.0.0.1 answering with `handler`; returns its base URL and the client ports it saw. */
async function serve(handler: http.RequestListener): Promise<{ url: string; clientPorts: number[] }> {
  const clientPorts: number[] = [];
  const server = http.createServer((req, res) => {
    clientPorts.push(req.socket.remotePort ?? 0);
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, clientPorts };
}

const request = (overrides: Partial<PinnedRequest> & { url: string }) =>
  requestPinned({ method: 'GET', headers: {}, timeoutMs: 5000, privateHosts: 'all', bodyLimit: 1024, ...overrides });

describe('requestPinned', () => {
  it('sends the method, headers and body, and returns the status, headers and whole answer', async () => {
    let seen: { method?: string; type?: string; length?: string; body: string } = { body: '' };
    const { url } = await serve((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen = { method: req.method, type: req.headers['content-type'], length: req.headers['content-length'], body };
        res.writeHead(201, { 'X-Answer': 'yes' }).end('créé');
      });
    });
    const result = await request({ url: `${url}/x`, method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'Zoë' });
    expect(seen).toEqual({ method: 'POST', type: 'text/plain', length: String(Buffer.byteLength('Zoë')), body: 'Zoë' });
    expect(result).toMatchObject({ status: 201, body: 'créé', truncated: false, brokenOff: false });
    expect(result.status !== null && result.headers['x-answer']).toBe('yes');
  });

  it('keeps an answer of exactly the limit whole, and cuts a longer one there, saying so', async () => {
    const { url } = await serve((req, res) => res.end('a'.repeat(req.url === '/exact' ? 1024 : 100_000)));
    const exact = await request({ url: `${url}/exact` });
    expect(exact).toMatchObject({ status: 200, truncated: false });
    expect(exact.status !== null && exact.body.length).toBe(1024);
    const long = await request({ url: `${url}/long` });
    expect(long).toMatchObject({ status: 200, truncated: true });
    expect(long.status !== null && long.body.length).toBe(1024);
  });

  it('says when an answer broke off after its status', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Length': '1000' });
      res.write('only part');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    expect(await request({ url })).toMatchObject({ status: 200, body: 'only part', brokenOff: true });
  });

  it('turns every failure into a result: a bad URL, a refused private host, plain http, a timeout, a closed port', async () => {
    expect(await request({ url: 'not a url' })).toMatchObject({ status: null, error: 'invalid_url' });
    expect(await request({ url: 'ftp://127.0.0.1/' })).toMatchObject({ status: null, error: 'invalid_url' });
    expect(await request({ url: 'https://127.0.0.1:9/', privateHosts: 'off' })).toMatchObject({ status: null, error: 'private_host' });
    const publicName: Resolver = async () => [{ address: '93.184.215.14', family: 4 }];
    expect(await request({ url: 'http://example.com/', privateHosts: 'off', resolver: publicName })).toMatchObject({
      status: null,
      error: 'https_required',
    });
    const unresolvable: Resolver = async () => {
      throw new Error('ENOTFOUND');
    };
    expect(await request({ url: 'https://nowhere.example/', resolver: unresolvable })).toMatchObject({ status: null, error: 'dns_error' });

    const { url: slow } = await serve(() => undefined);
    const timedOut = await request({ url: slow, timeoutMs: 200 });
    expect(timedOut).toMatchObject({ status: null, error: 'timeout' });
    expect(timedOut.status === null && timedOut.detail).toMatch(/did not answer within 0.2 s/);

    const { url: gone } = await serve(() => undefined);
    await new Promise<void>((resolve) => {
      const server = servers.pop()!;
      server.closeAllConnections();
      server.close(() => resolve());
    });
    expect(await request({ url: gone })).toMatchObject({ status: null, error: 'connection_error: ECONNREFUSED' });
  });

  it('connects to the address the name was checked at, whatever the name', async () => {
    const { url } = await serve((req, res) => res.end(req.headers.host));
    const port = new URL(url).port;
    const toLoopback: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const result = await request({ url: `http://lms.school.example:${port}/keys`, resolver: toLoopback });
    expect(result).toMatchObject({ status: 200, body: `lms.school.example:${port}` });
  });

  it('without a pool, each request opens a fresh connection', async () => {
    const { url, clientPorts } = await serve((_req, res) => res.end('ok'));
    await request({ url });
    await request({ url });
    expect(clientPorts).toHaveLength(2);
    expect(clientPorts[0]).not.toBe(clientPorts[1]);
  });
});
