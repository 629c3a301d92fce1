// @tier integration
// @databases sqlite, postgres
// Deleting an endpoint while the engine is sending its deliveries: the delete removes the
// endpoint's deliveries and their attempts (foreign keys cascade) while the engine records
// attempts of the same deliveries. On PostgreSQL the two run side by side (the delete
// serializable, the engine at read committed with row locks); the delete must still answer 200,
// and the engine must go on with the other endpoints. A CI run once saw a 500 here.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSchool, startTestAppliance, type TestAppliance, type TestSchool } from './helpers/appliance.js';
import { waitFor } from './helpers/wait.js';

const WEBHOOKS = { retryScheduleSeconds: [1, 1, 1, 1, 1], sweepSeconds: 1, timeoutMs: 1500 };
const ROUNDS = Number(process.env.RACE_ROUNDS ?? 12);
const STUDENTS_PER_ROUND = 40;

describe('deleting an endpoint while its deliveries are being sent', () => {
  let app: TestAppliance;
  let school: TestSchool;
  let receiver: http.Server;
  let receiverUrl = '';
  let received = 0;

  beforeAll(async () => {
    app = await startTestAppliance({ config: { outbound: { privateHosts: 'all' }, webhooks: WEBHOOKS } });
    school = await makeSchool(app);
    // Answers slowly and fails one request in three to the endpoints being deleted, so attempts are being recorded and retried
    // at the moment of the delete.
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received += 1;
        setTimeout(
          () => {
            res.writeHead(req.url?.startsWith('/round') && received % 3 === 0 ? 500 : 200);
            res.end('ok');
          },
          5 + (received % 20),
        );
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    receiver?.closeAllConnections();
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
    await app?.close();
  });

  const call = (method: 'post' | 'delete', path: string, body?: object) => {
    const request = app.http[method](`/v1${path}`).set('Authorization', school.key.auth);
    return body ? request.send(body) : request;
  };

  it('answers 200 each time and leaves no delivery of the deleted endpoint', async () => {
    // One endpoint that stays, so the engine is busy with more than the one being deleted.
    const staying = await call('post', '/webhooks/endpoints', { url: `${receiverUrl}/staying`, events: ['*'] });
    expect(staying.status, JSON.stringify(staying.body)).toBe(200);

    for (let round = 0; round < ROUNDS; round += 1) {
      const made = await call('post', '/webhooks/endpoints', { url: `${receiverUrl}/round-${round}`, events: ['*'] });
      expect(made.status, JSON.stringify(made.body)).toBe(200);
      const endpointId = made.body.data.id as string;
      const before = received;
      const students = Array.from({ length: STUDENTS_PER_ROUND }, (_, index) => ({ full_name: `Race ${round} ${index}` }));
      const bulk = await call('post', '/students/bulk', { students });
      expect(bulk.status, JSON.stringify(bulk.body).slice(0, 300)).toBe(200);
      // Delete once the engine has started on this round's deliveries, while most are in flight.
      await waitFor(() => received > before + (round % 4) * 3, `the first sends of round ${round}`, 10_000);
      const deleted = await call('delete', `/webhooks/endpoints/${endpointId}`);
      expect(deleted.status, `round ${round}: ${JSON.stringify(deleted.body)}\n${serverErrors(deleted.headers['x-request-id'])}`).toBe(200);
      const left = await app.ctx.db.models.WebhookDelivery.count({ where: { endpoint_id: endpointId } });
      expect(left, `round ${round}: deliveries of the deleted endpoint`).toBe(0);
    }

    // The engine went on: the endpoint that stayed gets every event of every round.
    const stayingId = staying.body.data.id as string;
    await waitFor(
      async () => (await app.ctx.db.models.WebhookDelivery.count({ where: { endpoint_id: stayingId, status: 'succeeded' } })) >= ROUNDS * STUDENTS_PER_ROUND,
      'every event delivered to the endpoint that stayed',
      60_000,
    );
  }, 180_000);

  function serverErrors(requestId: unknown): string {
    return app
      .logLines()
      .filter((line) => line.request_id === requestId || line.level === 50)
      .map((line) => JSON.stringify(line))
      .join('\n');
  }
});
