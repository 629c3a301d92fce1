// @tier integration
// @databases sqlite, postgres
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { EventType } from '../server/events/catalog.js';
import { emit } from '../server/events/emit.js';
import { isEventPattern, matchesPattern } from '../server/webhooks/patterns.js';
import type { EventRow } from '../server/models/event.js';
import {
  makeInstitution,
  makeKey,
  makeSchool,
  startTestAppliance,
  type TestAppliance,
  type TestInstitution,
  type TestKey,
  type WireEvent,
} from './helpers/appliance.js';
import { clientFor, collect } from './helpers/client.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The event types of docs/api.md#event-types, copied literally. */
const DOCUMENTED_EVENT_TYPES = [
  'student.created',
  'student.updated',
  'student.suspended',
  'student.reactivated',
  'faculty.created',
  'faculty.updated',
  'group.created',
  'group.updated',
  'group.deleted',
  'license.extended',
  'license.revoked',
  'license.expired',
  'exam.created',
  'exam.published',
  'exam.closed',
  'exam.assigned',
  'exam.graded',
  'submission.created',
  'submission.resubmission_requested',
  'submission.voided',
  'guardian.invited',
  'guardian.verified',
  'coupon_batch.approved',
  'coupon.redeemed',
  'merit.credited',
  'alpha.enrollment.created',
  'alpha.points.awarded',
];

describe('event store', () => {
  let app: TestAppliance;
  beforeAll(async () => {
    app = await startTestAppliance();
  });
  afterAll(() => app.close());

  const institutionWithKey = () => makeSchool(app, { scopes: ['webhooks:read'] });

  /** Emits one event per type, each in its own committed transaction. */
  async function emitEach(inst: TestInstitution, types: string[], data: (i: number) => Record<string, unknown> = (i) => ({ n: i })) {
    const rows: EventRow[] = [];
    for (const [i, type] of types.entries()) rows.push(await inst.tenant.inTransaction((tx) => emit(tx, type as EventType, data(i))));
    return rows;
  }

  const poll = (key: TestKey, query: Record<string, string | number> = {}) => app.http.get('/v1/events').query(query).set('Authorization', key.auth);

  /** Every event of the key's institution via the typed client's iterator, which follows has_more (and throws on anything but 200). */
  const pollAll = (key: TestKey) => collect(clientFor(app, key).events({ limit: 200 }));

  function expectStrictlyIncreasing(events: Array<{ created_at: string | Date }>) {
    const times = events.map((event) => new Date(event.created_at).getTime());
    expect(new Set(times).size).toBe(times.length);
    for (let i = 1; i < times.length; i++) expect(times[i]!, `event ${i}`).toBeGreaterThan(times[i - 1]!);
  }

  describe('GET /v1/events', () => {
    it('returns {items:[{id,type,created_at,data}], has_more}, oldest first', async () => {
      const { inst, key } = await institutionWithKey();
      const rows = await emitEach(inst, ['student.created', 'exam.created', 'exam.graded'], (i) => ({ seq: i, student_id: `stu_${i}` }));

      const res = await poll(key);
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(Object.keys(res.body.data).sort()).toEqual(['has_more', 'items']);
      expect(res.body.data.has_more).toBe(false);
      const items: WireEvent[] = res.body.data.items;
      expect(items.map((item) => item.id)).toEqual(rows.map((row) => row.id));
      expect(items.map((item) => item.type)).toEqual(['student.created', 'exam.created', 'exam.graded']);
      items.forEach((item, i) => {
        expect(Object.keys(item).sort()).toEqual(['created_at', 'data', 'id', 'type']);
        expect(item.id).toMatch(/^evt_/);
        expect(item.created_at).toMatch(ISO_MS);
        expect(item.created_at).toBe(rows[i]!.created_at.toISOString());
        expect(item.data).toEqual({ seq: i, student_id: `stu_${i}` });
      });
      expectStrictlyIncreasing(items);
      expect(res.body.data).not.toHaveProperty('page');
    });

    it('an institution without events gets an empty list', async () => {
      const { key } = await institutionWithKey();
      const res = await poll(key);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ items: [], has_more: false });
    });

    it('needs webhooks:read: institution:read only → 403 insufficient_scope; webhooks:write implies it', async () => {
      const inst = await makeInstitution(app);
      const readOnly = await makeKey(app, inst, { scopes: ['institution:read'] });
      const denied = await poll(readOnly);
      expect(denied.status).toBe(403);
      expect(denied.body).toMatchObject({ success: false, error: 'insufficient_scope', required: ['webhooks:read'], missing: ['webhooks:read'] });

      const deniedTypes = await app.http.get('/v1/events/types').set('Authorization', readOnly.auth);
      expect(deniedTypes.status).toBe(403);
      expect(deniedTypes.body.error).toBe('insufficient_scope');

      const writer = await makeKey(app, inst, { scopes: ['webhooks:write'] });
      expect((await poll(writer)).status).toBe(200);
      expect((await app.http.get('/v1/events/types').set('Authorization', writer.auth)).status).toBe(200);

      const none = await app.http.get('/v1/events');
      expect(none.status).toBe(401);
      expect(none.body.error).toBe('unauthorized');
    });

    it('`since` is strictly after', async () => {
      const { inst, key } = await institutionWithKey();
      const rows = await emitEach(inst, ['student.created', 'student.updated', 'student.suspended', 'student.reactivated']);

      const afterSecond = await poll(key, { since: rows[1]!.created_at.toISOString() });
      expect(afterSecond.status).toBe(200);
      expect(afterSecond.body.data.items.map((item: WireEvent) => item.id)).toEqual([rows[2]!.id, rows[3]!.id]);

      const afterLast = await poll(key, { since: rows[3]!.created_at.toISOString() });
      expect(afterLast.body.data).toEqual({ items: [], has_more: false });

      // One millisecond before an event includes it.
      const justBefore = new Date(rows[2]!.created_at.getTime() - 1).toISOString();
      const res = await poll(key, { since: justBefore });
      expect(res.body.data.items[0].id).toBe(rows[2]!.id);

      // An offset form of the same instant is the same instant.
      const instant = rows[1]!.created_at;
      const plusTwo = new Date(instant.getTime() + 2 * 60 * 60 * 1000).toISOString().replace('Z', '+02:00');
      const offset = await poll(key, { since: plusTwo });
      expect(offset.status).toBe(200);
      expect(offset.body.data.items.map((item: WireEvent) => item.id)).toEqual([rows[2]!.id, rows[3]!.id]);
    });

    it('created_at is strictly increasing per institution even when many events share a millisecond', async () => {
      const { inst, key } = await institutionWithKey();
      const frozen = Date.now();
      const clock = vi.spyOn(Date, 'now').mockReturnValue(frozen);
      try {
        // 50 in one transaction.
        await inst.tenant.inTransaction(async (tx) => {
          for (let i = 0; i < 50; i++) await emit(tx, 'student.created', { batch: 'one', i });
        });
        // 50 in concurrent transactions.
        await Promise.all(Array.from({ length: 50 }, (_, i) => inst.tenant.inTransaction((tx) => emit(tx, 'exam.created', { batch: 'many', i }))));
      } finally {
        clock.mockRestore();
      }

      const rows = await app.ctx.db.models.Event.findAll({ where: { institution_id: inst.id }, order: [['created_at', 'ASC']] });
      expect(rows).toHaveLength(100);
      expectStrictlyIncreasing(rows);
      // Within one transaction, the order of emission is the order of created_at.
      const single = rows.filter((row) => row.data.batch === 'one').map((row) => row.data.i);
      expect(single).toEqual(Array.from({ length: 50 }, (_, i) => i));

      const wire = await pollAll(key);
      expect(wire).toHaveLength(100);
      expect(wire.map((event) => event.id)).toEqual(rows.map((row) => row.id));
      expectStrictlyIncreasing(wire);
      expect(new Set(wire.map((event) => event.created_at)).size).toBe(100);
    });

    it('created_at stays increasing with the real clock under concurrent writers', async () => {
      const { inst, key } = await institutionWithKey();
      await Promise.all([
        inst.tenant.inTransaction(async (tx) => {
          for (let i = 0; i < 50; i++) await emit(tx, 'group.created', { i });
        }),
        ...Array.from({ length: 50 }, (_, i) => inst.tenant.inTransaction((tx) => emit(tx, 'group.updated', { i }))),
      ]);
      const wire = await pollAll(key);
      expect(wire).toHaveLength(100);
      expectStrictlyIncreasing(wire);
    });

    it('the polling recipe (newest created_at as since, limit=7) visits every event exactly once', async () => {
      const { inst, key } = await institutionWithKey();
      const types = DOCUMENTED_EVENT_TYPES as EventType[];
      const frozen = Date.now();
      const clock = vi.spyOn(Date, 'now').mockReturnValue(frozen);
      try {
        await inst.tenant.inTransaction(async (tx) => {
          for (let i = 0; i < 30; i++) await emit(tx, types[i % types.length]!, { i });
        });
        await Promise.all(Array.from({ length: 23 }, (_, i) => inst.tenant.inTransaction((tx) => emit(tx, types[(i * 5) % types.length]!, { i: 30 + i }))));
      } finally {
        clock.mockRestore();
      }

      const seen: WireEvent[] = [];
      let since: string | undefined;
      let polls = 0;
      let emittedDuring = 0;
      for (;;) {
        const res = await poll(key, { limit: 7, ...(since ? { since } : {}) });
        expect(res.status).toBe(200);
        const items: WireEvent[] = res.body.data.items;
        expect(items.length).toBeLessThanOrEqual(7);
        polls += 1;
        if (items.length === 0) {
          expect(res.body.data.has_more).toBe(false);
          break;
        }
        seen.push(...items);
        since = items.at(-1)!.created_at;
        // New events keep arriving while the integrator polls.
        if (polls % 3 === 0 && emittedDuring < 12) {
          await emitEach(inst, ['merit.credited', 'coupon.redeemed', 'exam.graded']);
          emittedDuring += 3;
        }
        expect(polls).toBeLessThan(100);
      }

      const all = await app.ctx.db.models.Event.findAll({ where: { institution_id: inst.id }, order: [['created_at', 'ASC']] });
      expect(all.length).toBe(53 + emittedDuring);
      const ids = seen.map((event) => event.id);
      expect(new Set(ids).size).toBe(ids.length); // no repeats
      expect(ids).toEqual(all.map((row) => row.id)); // no skips, in order
    });

    it('has_more is true exactly when more events follow', async () => {
      const { inst, key } = await institutionWithKey();
      const rows = await emitEach(inst, ['exam.created', 'exam.published', 'exam.closed']);

      const two = await poll(key, { limit: 2 });
      expect(two.body.data.items).toHaveLength(2);
      expect(two.body.data.has_more).toBe(true);

      const three = await poll(key, { limit: 3 });
      expect(three.body.data.items).toHaveLength(3);
      expect(three.body.data.has_more).toBe(false);

      const rest = await poll(key, { limit: 2, since: rows[1]!.created_at.toISOString() });
      expect(rest.body.data.items.map((item: WireEvent) => item.id)).toEqual([rows[2]!.id]);
      expect(rest.body.data.has_more).toBe(false);
    });

    it('limit defaults to 50, accepts 1..200, otherwise 422', async () => {
      const { inst, key } = await institutionWithKey();
      await inst.tenant.inTransaction(async (tx) => {
        for (let i = 0; i < 201; i++) await emit(tx, 'student.created', { i });
      });
      const byDefault = await poll(key);
      expect(byDefault.body.data.items).toHaveLength(50);
      expect(byDefault.body.data.has_more).toBe(true);

      const max = await poll(key, { limit: 200 });
      expect(max.body.data.items).toHaveLength(200);
      expect(max.body.data.has_more).toBe(true);

      const one = await poll(key, { limit: 1 });
      expect(one.body.data.items).toHaveLength(1);

      for (const limit of ['0', '201', '-1', '2.5', 'ten']) {
        const res = await poll(key, { limit });
        expect(res.status, limit).toBe(422);
        expect(res.body.error, limit).toBe('validation_error');
        expect(
          res.body.details.map((d: { path: string }) => d.path),
          limit,
        ).toContain('limit');
      }
    });

    describe('type filter', () => {
      let key: TestKey;
      let byType: Map<string, string>;
      const emitted = [
        'exam.graded',
        'exam.created',
        'student.created',
        'coupon.redeemed',
        'coupon_batch.approved',
        'alpha.enrollment.created',
        'alpha.points.awarded',
        // Not real types: they catch a LIKE-based filter ('_' is a LIKE wildcard) and a prefix
        // filter that forgets the dot ('exam.*' must not match 'examination.*').
        'couponXbatch.approved',
        'examination.started',
      ];

      beforeAll(async () => {
        const made = await institutionWithKey();
        key = made.key;
        const rows = await emitEach(made.inst, emitted);
        byType = new Map(rows.map((row) => [row.type, row.id]));
      });

      const typesFor = async (type: string) => {
        const { data, response } = await clientFor(app, key).GET('/events', { params: { query: { type } } });
        expect(response.status, type).toBe(200);
        return data!.data.items.map((item) => item.type);
      };

      it("'*' matches every event", async () => {
        expect(await typesFor('*')).toEqual(emitted);
      });

      it("'exam.*' matches exam.graded and exam.created, not student.created nor examination.*", async () => {
        expect(await typesFor('exam.*')).toEqual(['exam.graded', 'exam.created']);
      });

      it("'coupon_batch.*' is a literal prefix: '_' is not a wildcard", async () => {
        expect(await typesFor('coupon_batch.*')).toEqual(['coupon_batch.approved']);
        expect(await typesFor('coupon.*')).toEqual(['coupon.redeemed']);
      });

      it('a family matches deeper types', async () => {
        expect(await typesFor('alpha.*')).toEqual(['alpha.enrollment.created', 'alpha.points.awarded']);
        expect(await typesFor('alpha.points.*')).toEqual(['alpha.points.awarded']);
      });

      it('an exact type matches only that type', async () => {
        const res = await poll(key, { type: 'exam.graded' });
        expect(res.body.data.items.map((item: WireEvent) => item.id)).toEqual([byType.get('exam.graded')]);
        expect(await typesFor('coupon_batch.approved')).toEqual(['coupon_batch.approved']);
        expect(await typesFor('exam.published')).toEqual([]);
      });

      it('type combines with since and limit', async () => {
        const all = await poll(key, { type: '*' });
        const since = all.body.data.items[0].created_at; // after exam.graded
        expect((await poll(key, { type: 'exam.*', since })).body.data.items.map((item: WireEvent) => item.type)).toEqual(['exam.created']);
        const limited = await poll(key, { type: 'alpha.*', limit: 1 });
        expect(limited.body.data.items.map((item: WireEvent) => item.type)).toEqual(['alpha.enrollment.created']);
        expect(limited.body.data.has_more).toBe(true);
      });

      it('agrees with matchesPattern for every pattern (API filter = helper)', async () => {
        const patterns = ['*', 'exam.*', 'coupon.*', 'coupon_batch.*', 'alpha.*', 'alpha.enrollment.*', 'student.*', 'exam.graded', 'coupon_batch.approved'];
        for (const pattern of patterns) {
          expect(await typesFor(pattern), pattern).toEqual(emitted.filter((type) => matchesPattern(pattern, type)));
        }
      });

      it.each(['exam*', 'EXAM.*', '', 'exam.', '.*', '*.graded', 'exam.**', 'exam.*.graded', 'exam graded', '**', 'exam.%', 'exam._'])(
        'invalid pattern %j → 422 validation_error',
        async (type) => {
          const res = await poll(key, { type });
          expect(res.status).toBe(422);
          expect(res.body).toMatchObject({ success: false, error: 'validation_error' });
          expect(res.body.details.map((d: { path: string }) => d.path)).toContain('type');
        },
      );
    });

    it.each(['yesterday', 'not-a-date', '1757844000000', '2026-13-45T99:00:00Z', '2026-09-14 10:00:00'])('since %j (not ISO 8601) → 422', async (since) => {
      const { key } = await institutionWithKey();
      const res = await poll(key, { since });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ success: false, error: 'validation_error' });
      expect(res.body.details.map((d: { path: string }) => d.path)).toContain('since');
    });

    it('`since` older than 30 days → 410 event_pruned; within 30 days → 200', async () => {
      const { inst, key } = await institutionWithKey();
      await emitEach(inst, ['exam.graded']);
      const old = await poll(key, { since: new Date(Date.now() - 31 * DAY_MS).toISOString() });
      expect(old.status).toBe(410);
      expect(old.body).toMatchObject({ success: false, error: 'event_pruned' });
      expect(typeof old.body.message).toBe('string');

      const veryOld = await poll(key, { since: '2020-01-01T00:00:00.000Z' });
      expect(veryOld.status).toBe(410);
      expect(veryOld.body.error).toBe('event_pruned');

      const recent = await poll(key, { since: new Date(Date.now() - 29 * DAY_MS).toISOString() });
      expect(recent.status).toBe(200);
      expect(recent.body.data.items.map((item: WireEvent) => item.type)).toEqual(['exam.graded']);
    });

    it('events of a transaction that rolls back do not exist', async () => {
      const { inst, key } = await institutionWithKey();
      const committed: string[] = [];
      const listener = (events: readonly EventRow[]) => committed.push(...events.map((event) => event.id));
      app.ctx.db.committedEventListeners.add(listener);
      let ghostId = '';
      try {
        await expect(
          inst.tenant.inTransaction(async (tx) => {
            const event = await emit(tx, 'submission.voided', { marker: 'rolled-back' });
            ghostId = event.id;
            throw new Error('boom');
          }),
        ).rejects.toThrow('boom');
        const kept = await inst.tenant.inTransaction((tx) => emit(tx, 'submission.created', { marker: 'kept' }));

        expect(ghostId).toMatch(/^evt_/);
        expect(await app.ctx.db.models.Event.findByPk(ghostId)).toBeNull();
        expect(await app.ctx.db.models.Event.count({ where: { institution_id: inst.id } })).toBe(1);
        const res = await poll(key);
        expect(res.body.data.items.map((item: WireEvent) => item.id)).toEqual([kept.id]);
        // Listeners (the webhook dispatcher) hear only of committed events.
        expect(committed).toEqual([kept.id]);
      } finally {
        app.ctx.db.committedEventListeners.delete(listener);
      }
    });

    it('tenancy: institution B never sees A’s events', async () => {
      const a = await institutionWithKey();
      const b = await institutionWithKey();
      const frozen = Date.now();
      const clock = vi.spyOn(Date, 'now').mockReturnValue(frozen);
      let rowsA: EventRow[];
      try {
        rowsA = await emitEach(a.inst, ['exam.graded', 'student.created', 'coupon_batch.approved']);
      } finally {
        clock.mockRestore();
      }
      const rowB = await b.inst.tenant.inTransaction((tx) => emit(tx, 'exam.graded', { who: 'b' }));

      for (const type of ['*', 'exam.*', 'exam.graded', 'student.created']) {
        const res = await poll(b.key, { type });
        expect(res.status).toBe(200);
        const ids = res.body.data.items.map((item: WireEvent) => item.id);
        for (const row of rowsA) expect(ids, type).not.toContain(row.id);
      }
      expect((await poll(b.key)).body.data.items.map((item: WireEvent) => item.id)).toEqual([rowB.id]);
      expect((await poll(a.key)).body.data.items.map((item: WireEvent) => item.id)).toEqual(rowsA.map((row) => row.id));
      // A's own `since` values do not leak B's events either.
      const sinceA = await poll(a.key, { since: new Date(frozen - 1000).toISOString() });
      expect(sinceA.body.data.items.map((item: WireEvent) => item.id)).not.toContain(rowB.id);
    });
  });

  describe('retention', () => {
    it('the prune-events job deletes events older than 30 days and keeps recent ones', async () => {
      const { inst, key } = await institutionWithKey();
      const other = await institutionWithKey();
      const { Event } = app.ctx.db.models;
      const old = await Event.create({
        id: 'evt_old31daysAAAAAAAAAAAAAAAA',
        institution_id: inst.id,
        type: 'student.created',
        data: { old: true },
        created_at: new Date(Date.now() - 31 * DAY_MS),
      });
      const oldOther = await Event.create({
        id: 'evt_old40daysBBBBBBBBBBBBBBBB',
        institution_id: other.inst.id,
        type: 'exam.graded',
        data: { old: true },
        created_at: new Date(Date.now() - 40 * DAY_MS),
      });
      const nearlyOld = await Event.create({
        id: 'evt_old29daysCCCCCCCCCCCCCCCC',
        institution_id: inst.id,
        type: 'student.updated',
        data: { old: false },
        created_at: new Date(Date.now() - 29 * DAY_MS),
      });
      const [recent] = await emitEach(inst, ['student.created']);

      const result = await app.scheduler.runNow('prune-events');
      expect(result).toMatchObject({ deleted: expect.any(Number) });
      expect((result as { deleted: number }).deleted).toBeGreaterThanOrEqual(2);

      expect(await Event.findByPk(old.id)).toBeNull();
      expect(await Event.findByPk(oldOther.id)).toBeNull();
      expect(await Event.findByPk(nearlyOld.id)).not.toBeNull();
      expect(await Event.findByPk(recent!.id)).not.toBeNull();

      const res = await poll(key);
      expect(res.body.data.items.map((item: WireEvent) => item.id)).toEqual([nearlyOld.id, recent!.id]);

      // Running it again deletes nothing more.
      const again = await app.scheduler.runNow('prune-events');
      expect(again).toEqual({ deleted: 0 });
    });
  });

  describe('GET /v1/events/types', () => {
    it('lists every documented type with a non-empty description', async () => {
      const { key } = await institutionWithKey();
      const res = await app.http.get('/v1/events/types').set('Authorization', key.auth);
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      const items = res.body.data.items as Array<{ type: string; description: string; area: string }>;
      const types = items.map((item) => item.type);
      expect(new Set(types).size).toBe(types.length);
      for (const type of DOCUMENTED_EVENT_TYPES) expect(types, type).toContain(type);
      for (const item of items) {
        expect(Object.keys(item).sort()).toEqual(['area', 'description', 'type']);
        expect(typeof item.description).toBe('string');
        expect(item.area).toBe(item.type.slice(0, item.type.indexOf('.')));
        expect(item.description.trim().length, item.type).toBeGreaterThan(0);
        // Every listed type can be subscribed to exactly and is matched by its family.
        expect(isEventPattern(item.type), item.type).toBe(true);
        expect(matchesPattern(`${item.type.split('.')[0]}.*`, item.type)).toBe(true);
      }
    });
  });
});

describe('event patterns (server/webhooks/patterns.ts)', () => {
  it.each(['*', 'exam.*', 'coupon_batch.*', 'alpha.points.*', 'exam.graded', 'submission.resubmission_requested', 'alpha.enrollment.created', 'a1.b2'])(
    'isEventPattern(%j) is true',
    (pattern) => {
      expect(isEventPattern(pattern)).toBe(true);
    },
  );

  it.each([
    '',
    ' ',
    'exam*',
    'EXAM.*',
    'Exam.graded',
    'exam',
    'exam.',
    '.exam',
    '.*',
    '*.graded',
    'exam.**',
    'exam.*.graded',
    '**',
    '* ',
    ' exam.*',
    'exam graded',
    'exam..graded',
    '1exam.graded',
    'exam.%',
    'exam._',
    'exam-x.graded',
  ])('isEventPattern(%j) is false', (pattern) => {
    expect(isEventPattern(pattern)).toBe(false);
  });

  it('every documented type is a valid exact pattern', () => {
    for (const type of DOCUMENTED_EVENT_TYPES) expect(isEventPattern(type), type).toBe(true);
  });

  it("'*' matches everything", () => {
    for (const type of DOCUMENTED_EVENT_TYPES) expect(matchesPattern('*', type)).toBe(true);
  });

  it('a family matches its types and deeper ones, nothing else', () => {
    expect(matchesPattern('exam.*', 'exam.graded')).toBe(true);
    expect(matchesPattern('exam.*', 'exam.created')).toBe(true);
    expect(matchesPattern('exam.*', 'student.created')).toBe(false);
    expect(matchesPattern('exam.*', 'examination.started')).toBe(false);
    expect(matchesPattern('exam.*', 'exam')).toBe(false);
    expect(matchesPattern('alpha.*', 'alpha.points.awarded')).toBe(true);
    expect(matchesPattern('alpha.points.*', 'alpha.points.awarded')).toBe(true);
    expect(matchesPattern('alpha.points.*', 'alpha.enrollment.created')).toBe(false);
    expect(matchesPattern('coupon_batch.*', 'coupon_batch.approved')).toBe(true);
    expect(matchesPattern('coupon_batch.*', 'coupon.redeemed')).toBe(false);
    expect(matchesPattern('coupon_batch.*', 'couponXbatch.approved')).toBe(false);
    expect(matchesPattern('coupon.*', 'coupon_batch.approved')).toBe(false);
    expect(matchesPattern('submission.*', 'submission.resubmission_requested')).toBe(true);
  });

  it('an exact pattern matches only itself', () => {
    expect(matchesPattern('exam.graded', 'exam.graded')).toBe(true);
    expect(matchesPattern('exam.graded', 'exam.created')).toBe(false);
    expect(matchesPattern('exam.graded', 'exam.graded.extra')).toBe(false);
    expect(matchesPattern('exam.graded', 'exam')).toBe(false);
  });

  it('property: matchesPattern agrees with the definition for generated types and patterns', () => {
    const segment = fc.stringMatching(/^[a-z][a-z0-9_]{0,6}$/);
    const type = fc.array(segment, { minLength: 2, maxLength: 4 }).map((parts) => parts.join('.'));
    fc.assert(
      fc.property(type, fc.integer({ min: 0, max: 3 }), type, (t, cut, other) => {
        const parts = t.split('.');
        const family = `${parts.slice(0, Math.min(cut, parts.length - 1) || 1).join('.')}.*`;
        expect(isEventPattern(t)).toBe(true);
        expect(isEventPattern(family)).toBe(true);
        expect(matchesPattern('*', t)).toBe(true);
        expect(matchesPattern(t, t)).toBe(true);
        expect(matchesPattern(family, t)).toBe(true);
        const prefix = family.slice(0, -2);
        const otherParts = other.split('.');
        const expected = otherParts.slice(0, prefix.split('.').length).join('.') === prefix && otherParts.length > prefix.split('.').length;
        expect(matchesPattern(family, other)).toBe(expected);
        expect(matchesPattern(t, other)).toBe(t === other);
      }),
      { numRuns: 300 },
    );
  });
});
