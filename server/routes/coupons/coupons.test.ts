// @tier integration
// @databases sqlite, postgres
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUPON_CODE_PATTERN } from '../../commands/wallet/coupons.js';
import type { Scope } from '../../policies/scopes.js';
import {
  learnerSession,
  makeKey,
  makePerson,
  makeSchool,
  readEvents,
  requestsAs,
  startTestAppliance,
  type TestAppliance,
  type TestKey,
  type TestPerson,
  type TestSchool,
} from '../../../tests/helpers/appliance.js';
import { cliFails, runCliCaptured, type CliResult } from '../../../tests/helpers/cli.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const BATCH_FIELDS = ['created_at', 'description', 'expiry_date', 'id', 'name', 'redeemed_count', 'status', 'total_coupons', 'value_cents'];
const REDEMPTION_FIELDS = ['batch_id', 'code', 'id', 'login_email', 'redeemed_at', 'student_id', 'value_cents'];
const DAY_MS = 24 * 60 * 60 * 1000;
const inDays = (days: number) => new Date(Date.now() + days * DAY_MS).toISOString();

type Person = TestPerson;

interface WireBatch {
  id: string;
  name: string;
  description: string;
  total_coupons: number;
  value_cents: number;
  expiry_date: string;
  status: string;
  redeemed_count: number;
  created_at: string;
  codes?: Array<{ code: string; status: string; redeemed_at: string | null }>;
}

describe('Coupons', () => {
  let app: TestAppliance;
  beforeAll(async () => {
    app = await startTestAppliance();
  });
  afterAll(() => app.close());

  type School = TestSchool & { eventsKey: TestKey; student: Person };

  const { get, post } = requestsAs(() => app);

  /** The operator's command line on the running appliance's data folder (its own database connection). */
  const cli = (...argv: string[]): Promise<CliResult> => runCliCaptured(app, ...argv);

  const person = (key: TestKey, role: 'students' | 'faculty', fullName: string) => makePerson(app, key, role, fullName);

  async function school(): Promise<School> {
    const base = await makeSchool(app, { eventsKey: true });
    return { ...base, student: await person(base.key, 'students', 'Ada Lovelace') };
  }

  const sessionOf = (key: TestKey, who: Person) => learnerSession(app, key, who);

  const redeem = (session: string, code: unknown) =>
    app.http
      .post('/v1/app/coupons/redeem')
      .set('Authorization', `Bearer ${session}`)
      .send({ code } as object);

  async function createBatch(key: TestKey, body: Record<string, unknown> = {}): Promise<WireBatch> {
    const res = await post(key, '/coupons/batches', { name: 'Science fair', total_coupons: 5, value_cents: 500, expiry_date: inDays(30), ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as WireBatch;
  }

  async function approve(batchId: string): Promise<WireBatch> {
    const result = await cli('coupons', 'approve', batchId);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    return JSON.parse(result.stdout) as WireBatch;
  }

  async function detail(key: TestKey, batchId: string): Promise<WireBatch> {
    const res = await get(key, `/coupons/batches/${batchId}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as WireBatch;
  }

  /** An approved batch and its codes. */
  async function approvedBatch(s: School, body: Record<string, unknown> = {}): Promise<{ batch: WireBatch; codes: string[] }> {
    const created = await createBatch(s.key, body);
    await approve(created.id);
    const batch = await detail(s.key, created.id);
    return { batch, codes: batch.codes!.map((c) => c.code) };
  }

  const events = (s: School, type: string) => readEvents(app, s.eventsKey, type);

  const expectError = (res: { status: number; body: Record<string, unknown> }, status: number, code: string) => {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body).toMatchObject({ success: false, error: code });
    expect(typeof res.body.message).toBe('string');
  };

  const db = () => app.ctx.db;

  describe('POST /v1/coupons/batches', () => {
    it('creates a pending batch: exactly the Coupon batch object, no codes', async () => {
      const s = await school();
      const expiry = inDays(60);
      const res = await post(s.key, '/coupons/batches', {
        name: '  Science fair prizes ',
        description: 'Finalists',
        total_coupons: 50,
        value_cents: 500,
        expiry_date: expiry,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const data = res.body.data as WireBatch;
      expect(Object.keys(data).sort()).toEqual(BATCH_FIELDS);
      expect(data.id).toMatch(/^cpb_[A-Za-z0-9]{24}$/);
      expect(data).toMatchObject({
        name: 'Science fair prizes',
        description: 'Finalists',
        total_coupons: 50,
        value_cents: 500,
        expiry_date: expiry,
        status: 'pending',
        redeemed_count: 0,
      });
      expect(data.created_at).toMatch(ISO_MS);
      expect(await db().models.CouponCode.count({ where: { batch_id: data.id } })).toBe(0);
    });

    it('description defaults to ""; the limits 1 and 10000 coupons, 1 and 100000 cents are accepted', async () => {
      const s = await school();
      const low = await createBatch(s.key, { total_coupons: 1, value_cents: 1 });
      expect(low.description).toBe('');
      const high = await createBatch(s.key, { total_coupons: 10000, value_cents: 100000 });
      expect(high).toMatchObject({ total_coupons: 10000, value_cents: 100000 });
    });

    it.each([
      ['total_coupons 0', { total_coupons: 0 }],
      ['total_coupons 10001', { total_coupons: 10001 }],
      ['total_coupons 1.5', { total_coupons: 1.5 }],
      ['value_cents 0', { value_cents: 0 }],
      ['value_cents 100001', { value_cents: 100001 }],
      ['value_cents "500"', { value_cents: '500' }],
      ['expiry_date in the past', { expiry_date: new Date(Date.now() - 1000).toISOString() }],
      ['expiry_date not a date-time', { expiry_date: '2026-13-40' }],
      ['name blank', { name: '   ' }],
      ['name 201 characters', { name: 'x'.repeat(201) }],
      ['description 2001 characters', { description: 'x'.repeat(2001) }],
      ['an unknown field', { status: 'approved' }],
      ['a code list', { codes: ['AAAA-AAAA-AAAA-AAAA'] }],
    ])('%s: 422 validation_error', async (_label, override) => {
      const s = await school();
      const res = await post(s.key, '/coupons/batches', { name: 'Fair', total_coupons: 5, value_cents: 500, expiry_date: inDays(30), ...override });
      expectError(res, 422, 'validation_error');
      expect(await db().models.CouponBatch.count({ where: { institution_id: s.inst.id } })).toBe(0);
    });

    it.each(['name', 'total_coupons', 'value_cents', 'expiry_date'])('missing %s: 422 validation_error', async (field) => {
      const s = await school();
      const body: Record<string, unknown> = { name: 'Fair', total_coupons: 5, value_cents: 500, expiry_date: inDays(30) };
      delete body[field];
      const res = await post(s.key, '/coupons/batches', body);
      expectError(res, 422, 'validation_error');
      expect(JSON.stringify(res.body.details)).toContain(field);
    });
  });

  describe('GET /v1/coupons/batches', () => {
    it("lists the institution's batches oldest first, paged, without codes", async () => {
      const s = await school();
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1) ids.push((await createBatch(s.key, { name: `Batch ${i}` })).id);
      await approve(ids[0]!);

      const all = await get(s.key, '/coupons/batches');
      expect(all.status).toBe(200);
      expect(all.body.data).toMatchObject({ page: 1, limit: 50, total: 3, totalPages: 1 });
      expect(all.body.data.items.map((b: WireBatch) => b.id)).toEqual(ids);
      for (const item of all.body.data.items) expect(Object.keys(item).sort()).toEqual(BATCH_FIELDS);
      expect(all.body.data.items[0].status).toBe('approved');

      const second = await get(s.key, '/coupons/batches', { page: 2, limit: 2 });
      expect(second.body.data).toMatchObject({ page: 2, limit: 2, total: 3, totalPages: 2 });
      expect(second.body.data.items.map((b: WireBatch) => b.id)).toEqual([ids[2]]);
    });

    it.each<Record<string, string | number>>([{ limit: 0 }, { limit: 201 }, { page: 0 }, { status: 'pending' }])(
      'query %o: 422 validation_error',
      async (query) => {
        const s = await school();
        expectError(await get(s.key, '/coupons/batches', query), 422, 'validation_error');
      },
    );
  });

  describe('approval by the operator (CLI) and GET /v1/coupons/batches/{id}', () => {
    it('codes are hidden while pending and shown once approved: unique, well-formed, available', async () => {
      const s = await school();
      const created = await createBatch(s.key, { total_coupons: 25 });

      const pending = await detail(s.key, created.id);
      expect(pending.status).toBe('pending');
      expect(pending).not.toHaveProperty('codes');
      expect(Object.keys(pending).sort()).toEqual(BATCH_FIELDS);

      const printed = await approve(created.id);
      expect(Object.keys(printed).sort()).toEqual(BATCH_FIELDS);
      expect(printed).toMatchObject({ id: created.id, status: 'approved', total_coupons: 25, redeemed_count: 0 });

      const approved = await detail(s.key, created.id);
      expect(Object.keys(approved).sort()).toEqual([...BATCH_FIELDS, 'codes'].sort());
      expect(approved.status).toBe('approved');
      expect(approved.codes).toHaveLength(25);
      for (const code of approved.codes!) {
        expect(Object.keys(code).sort()).toEqual(['code', 'redeemed_at', 'status']);
        expect(code.code).toMatch(COUPON_CODE_PATTERN);
        expect(code).toMatchObject({ status: 'available', redeemed_at: null });
      }
      expect(new Set(approved.codes!.map((c) => c.code)).size).toBe(25);
      // Ordered by code, so two reads list them the same way.
      const sorted = [...approved.codes!.map((c) => c.code)].sort();
      expect(approved.codes!.map((c) => c.code)).toEqual(sorted);

      const approvedEvents = await events(s, 'coupon_batch.*');
      expect(approvedEvents).toHaveLength(1);
      expect(approvedEvents[0]!.data).toEqual({ batch_id: created.id, total_coupons: 25 });
    });

    it('a 10000-coupon batch gets 10000 distinct codes of 16 symbols from the unambiguous alphabet', async () => {
      const s = await school();
      const created = await createBatch(s.key, { total_coupons: 10000, value_cents: 1 });
      await approve(created.id);
      const batch = await detail(s.key, created.id);
      const codes = batch.codes!.map((c) => c.code);
      expect(codes).toHaveLength(10000);
      expect(new Set(codes).size).toBe(10000);
      for (const code of codes) expect(code).toMatch(COUPON_CODE_PATTERN);
      // No look-alike symbols at all, and every symbol of the alphabet shows up (80 random bits per code).
      const symbols = new Set(codes.join('').replace(/-/g, ''));
      expect([...symbols].sort().join('')).toBe('23456789ABCDEFGHJKLMNPQRSTUVWXYZ');
      for (const ambiguous of ['0', 'O', '1', 'I']) expect(symbols.has(ambiguous)).toBe(false);
      // Roughly uniform: each of the 32 symbols is close to 1/32 of 160000 (5000); a biased generator would stray far.
      const counts = new Map<string, number>();
      for (const symbol of codes.join('').replace(/-/g, '')) counts.set(symbol, (counts.get(symbol) ?? 0) + 1);
      for (const count of counts.values()) expect(Math.abs(count - 5000)).toBeLessThan(500);

      // Unique across batches and institutions too (the index is appliance-wide).
      const other = await school();
      const more = await approvedBatch(other, { total_coupons: 500 });
      const all = new Set([...codes, ...more.codes]);
      expect(all.size).toBe(10500);
      expect(await db().models.CouponCode.count({ where: { batch_id: created.id } })).toBe(10000);
    });

    it('reject: the batch is rejected and never shows codes', async () => {
      const s = await school();
      const created = await createBatch(s.key);
      const result = await cli('coupons', 'reject', created.id);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ id: created.id, status: 'rejected' });
      const rejected = await detail(s.key, created.id);
      expect(rejected.status).toBe('rejected');
      expect(rejected).not.toHaveProperty('codes');
      expect(await db().models.CouponCode.count({ where: { batch_id: created.id } })).toBe(0);
      expect(await events(s, 'coupon_batch.*')).toHaveLength(0);
    });

    it('approving or rejecting a batch that is not pending: exit 1 conflict, nothing changes', async () => {
      const s = await school();
      const approved = await createBatch(s.key, { total_coupons: 3 });
      await approve(approved.id);
      const before = (await detail(s.key, approved.id)).codes!.map((c) => c.code);
      cliFails(await cli('coupons', 'approve', approved.id), 'conflict');
      cliFails(await cli('coupons', 'reject', approved.id), 'conflict');
      const after = await detail(s.key, approved.id);
      expect(after.status).toBe('approved');
      expect(after.codes!.map((c) => c.code)).toEqual(before);
      expect(await events(s, 'coupon_batch.*')).toHaveLength(1);

      const rejected = await createBatch(s.key);
      expect((await cli('coupons', 'reject', rejected.id)).code).toBe(0);
      cliFails(await cli('coupons', 'approve', rejected.id), 'conflict');
      cliFails(await cli('coupons', 'reject', rejected.id), 'conflict');
      expect((await detail(s.key, rejected.id)).status).toBe('rejected');
    });

    it('an unknown batch id: exit 1 not_found; a missing id: usage error (exit 2)', async () => {
      cliFails(await cli('coupons', 'approve', 'cpb_doesNotExist'), 'not_found');
      cliFails(await cli('coupons', 'reject', 'cpb_doesNotExist'), 'not_found');
      expect((await cli('coupons', 'approve')).code).toBe(2);
    });

    it('a batch whose expiry passed while pending cannot be approved (conflict) but can be rejected', async () => {
      const s = await school();
      const created = await createBatch(s.key);
      await db().models.CouponBatch.update({ expiry_date: new Date(Date.now() - 1000) }, { where: { id: created.id } });
      cliFails(await cli('coupons', 'approve', created.id), 'conflict');
      expect((await detail(s.key, created.id)).status).toBe('pending');
      expect((await cli('coupons', 'reject', created.id)).code).toBe(0);
    });

    it("GET of an unknown id, or of another institution's batch: 404 not_found", async () => {
      const a = await school();
      const b = await school();
      const theirs = await approvedBatch(b);
      expectError(await get(a.key, '/coupons/batches/cpb_doesNotExist'), 404, 'not_found');
      expectError(await get(a.key, `/coupons/batches/${theirs.batch.id}`), 404, 'not_found');
      const list = await get(a.key, '/coupons/batches');
      expect(list.body.data.items.map((x: WireBatch) => x.id)).not.toContain(theirs.batch.id);
    });
  });

  describe('POST /v1/app/coupons/redeem', () => {
    it('credits the wallet (not the allowance), marks the code, counts it, lists it, emits coupon.redeemed', async () => {
      const s = await school();
      const { batch, codes } = await approvedBatch(s, { value_cents: 750, name: 'Robotics' });
      const session = await sessionOf(s.key, s.student);

      const res = await redeem(session, codes[0]);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data).toEqual({ value_cents: 750, balance_cents: 750 });

      const second = await redeem(session, codes[1]);
      expect(second.body.data).toEqual({ value_cents: 750, balance_cents: 1500 });

      const after = await detail(s.key, batch.id);
      expect(after.redeemed_count).toBe(2);
      const byCode = new Map(after.codes!.map((c) => [c.code, c]));
      expect(byCode.get(codes[0]!)).toMatchObject({ status: 'redeemed' });
      expect(byCode.get(codes[0]!)!.redeemed_at).toMatch(ISO_MS);
      expect(byCode.get(codes[2]!)).toMatchObject({ status: 'available', redeemed_at: null });

      const redemptions = await get(s.key, '/coupons/redemptions');
      expect(redemptions.status).toBe(200);
      expect(redemptions.body.data).toMatchObject({ total: 2, page: 1, limit: 50, totalPages: 1 });
      const first = redemptions.body.data.items[0];
      expect(Object.keys(first).sort()).toEqual(REDEMPTION_FIELDS);
      expect(first).toMatchObject({
        code: codes[0],
        batch_id: batch.id,
        student_id: s.student.id,
        login_email: s.student.login_email,
        value_cents: 750,
        redeemed_at: byCode.get(codes[0]!)!.redeemed_at,
      });
      expect(first.id).toMatch(/^cpr_/);

      // The wallet holds the coupons; the allowance was never granted nor drawn.
      const wallet = await get(s.key, `/merits/wallets/${s.student.login_email}`);
      expect(wallet.body.data.balance_cents).toBe(1500);
      expect(
        wallet.body.data.ledger.map((row: { kind: string; amount_cents: number; ref: string; reason: string }) => [
          row.kind,
          row.amount_cents,
          row.ref,
          row.reason,
        ]),
      ).toEqual([
        ['coupon', 750, codes[1], 'Coupon: Robotics'],
        ['coupon', 750, codes[0], 'Coupon: Robotics'],
      ]);
      expect((await get(s.key, '/merits/allowance')).body.data).toEqual({ total_cents: 0, used_cents: 0, remaining_cents: 0 });

      const redeemed = await events(s, 'coupon.*');
      expect(redeemed.map((e) => e.data)).toEqual([
        { redemption_id: first.id, batch_id: batch.id, student_id: s.student.id, value_cents: 750 },
        { redemption_id: redemptions.body.data.items[1].id, batch_id: batch.id, student_id: s.student.id, value_cents: 750 },
      ]);
    });

    it('case, spaces and hyphens in the typed code do not matter', async () => {
      const s = await school();
      const { codes } = await approvedBatch(s);
      const session = await sessionOf(s.key, s.student);
      const typed = ` ${codes[0]!.toLowerCase().replace(/-/g, ' ')} `;
      const res = await redeem(session, typed);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expectError(await redeem(session, codes[0]!.replace(/-/g, '')), 409, 'conflict');
    });

    it('a redeemed code: 409 conflict for everyone, and nothing is credited again', async () => {
      const s = await school();
      const other = await person(s.key, 'students', 'Alan Turing');
      const { batch, codes } = await approvedBatch(s);
      const mine = await sessionOf(s.key, s.student);
      const theirs = await sessionOf(s.key, other);
      expect((await redeem(mine, codes[0])).status).toBe(200);
      expectError(await redeem(mine, codes[0]), 409, 'conflict');
      expectError(await redeem(theirs, codes[0]), 409, 'conflict');
      expect((await detail(s.key, batch.id)).redeemed_count).toBe(1);
      expect(await db().models.MeritLedgerEntry.count({ where: { ref: codes[0]! } })).toBe(1);
      expect((await get(s.key, `/merits/wallets/${other.login_email}`)).body.data.balance_cents).toBe(0);
    });

    it.each([
      ['an unknown code', 'ZZZZ-ZZZZ-ZZZZ-ZZZZ'],
      ['not a code at all', 'hello'],
      ['a code with a look-alike symbol', 'O0I1-AAAA-AAAA-AAAA'],
    ])('%s: 404 not_found', async (_label, code) => {
      const s = await school();
      await approvedBatch(s);
      expectError(await redeem(await sessionOf(s.key, s.student), code), 404, 'not_found');
    });

    it.each([
      ['empty', ''],
      ['not a string', 1234],
      ['too long', 'A'.repeat(65)],
    ])('a code that is %s: 422 validation_error', async (_label, code) => {
      const s = await school();
      expectError(await redeem(await sessionOf(s.key, s.student), code), 422, 'validation_error');
    });

    it("another institution's code: 404 not_found, and it stays available there", async () => {
      const a = await school();
      const b = await school();
      const theirs = await approvedBatch(b);
      expectError(await redeem(await sessionOf(a.key, a.student), theirs.codes[0]), 404, 'not_found');
      const after = await detail(b.key, theirs.batch.id);
      expect(after.codes!.find((c) => c.code === theirs.codes[0])!.status).toBe('available');
    });

    it('an expired batch: 409 conflict; unredeemed codes show `expired`, redeemed ones stay `redeemed`', async () => {
      const s = await school();
      const { batch, codes } = await approvedBatch(s);
      const session = await sessionOf(s.key, s.student);
      expect((await redeem(session, codes[0])).status).toBe(200);
      await db().models.CouponBatch.update({ expiry_date: new Date(Date.now() - 1) }, { where: { id: batch.id } });
      const res = await redeem(session, codes[1]);
      expectError(res, 409, 'conflict');
      expect(res.body.message).toMatch(/expired/);
      // A redeemed code stays "already redeemed" after the expiry.
      expect((await redeem(session, codes[0])).body.message).toMatch(/already/);
      const after = await detail(s.key, batch.id);
      expect(after.codes!.filter((c) => c.status === 'redeemed').map((c) => c.code)).toEqual([codes[0]]);
      expect(after.codes!.filter((c) => c.status === 'expired')).toHaveLength(codes.length - 1);
      expect(after.redeemed_count).toBe(1);
    });

    it("a faculty member's session: 403 forbidden", async () => {
      const s = await school();
      const teacher = await person(s.key, 'faculty', 'Grace Hopper');
      const { codes } = await approvedBatch(s);
      expectError(await redeem(await sessionOf(s.key, teacher), codes[0]), 403, 'forbidden');
    });

    it('without a session: 401; with an API key: 401 invalid_api_key', async () => {
      const s = await school();
      expectError(await app.http.post('/v1/app/coupons/redeem').send({ code: 'x' }), 401, 'unauthorized');
      const res = await app.http.post('/v1/app/coupons/redeem').set('Authorization', s.key.auth).send({ code: 'x' });
      expect(res.status).toBe(401);
    });

    it('10 parallel redemptions of one code by 10 students: exactly one succeeds, one ledger row, one event', async () => {
      const s = await school();
      const students = [s.student];
      for (let i = 1; i < 10; i += 1) students.push(await person(s.key, 'students', `Student ${i}`));
      const sessions = await Promise.all(students.map((who) => sessionOf(s.key, who)));
      const { batch, codes } = await approvedBatch(s, { value_cents: 300 });

      const results = await Promise.all(sessions.map((session) => redeem(session, codes[0])));
      const ok = results.filter((res) => res.status === 200);
      expect(ok).toHaveLength(1);
      expect(ok[0]!.body.data).toEqual({ value_cents: 300, balance_cents: 300 });
      for (const res of results.filter((r) => r.status !== 200)) expectError(res, 409, 'conflict');

      expect(await db().models.MeritLedgerEntry.count({ where: { institution_id: s.inst.id } })).toBe(1);
      expect(await db().models.CouponRedemption.count({ where: { batch_id: batch.id } })).toBe(1);
      expect((await detail(s.key, batch.id)).redeemed_count).toBe(1);
      expect(await events(s, 'coupon.redeemed')).toHaveLength(1);
      const balances = await db().models.MeritWallet.findAll({ where: { institution_id: s.inst.id } });
      expect(balances.map((w) => Number(w.balance_cents))).toEqual([300]);
    });

    it('10 parallel redemptions of one code by the same student: credited once', async () => {
      const s = await school();
      const session = await sessionOf(s.key, s.student);
      const { codes } = await approvedBatch(s, { value_cents: 200 });
      const results = await Promise.all(Array.from({ length: 10 }, () => redeem(session, codes[0])));
      expect(results.filter((res) => res.status === 200)).toHaveLength(1);
      expect(results.filter((res) => res.status === 409)).toHaveLength(9);
      const wallet = await get(s.key, `/merits/wallets/${s.student.id}`);
      expect(wallet.body.data.balance_cents).toBe(200);
      expect(wallet.body.data.ledger).toHaveLength(1);
    });

    it('parallel redemptions of different codes all credit, and the wallet adds up', async () => {
      const s = await school();
      const session = await sessionOf(s.key, s.student);
      const { batch, codes } = await approvedBatch(s, { total_coupons: 12, value_cents: 125 });
      const results = await Promise.all(codes.map((code) => redeem(session, code)));
      expect(results.every((res) => res.status === 200)).toBe(true);
      // Each answer's balance is a distinct step: the credits were applied one after another.
      expect(results.map((res) => res.body.data.balance_cents as number).sort((x, y) => x - y)).toEqual(codes.map((_c, i) => (i + 1) * 125));
      expect((await get(s.key, `/merits/wallets/${s.student.id}`)).body.data.balance_cents).toBe(1500);
      expect((await detail(s.key, batch.id)).redeemed_count).toBe(12);
    });
  });

  describe('GET /v1/coupons/redemptions', () => {
    it('filters by email (login email or id), since, and pages', async () => {
      const s = await school();
      const other = await person(s.key, 'students', 'Alan Turing');
      const { codes } = await approvedBatch(s, { total_coupons: 5 });
      const mine = await sessionOf(s.key, s.student);
      const theirs = await sessionOf(s.key, other);
      await redeem(mine, codes[0]);
      await redeem(theirs, codes[1]);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const cut = new Date().toISOString();
      await new Promise((resolve) => setTimeout(resolve, 5));
      await redeem(mine, codes[2]);

      const byEmail = await get(s.key, '/coupons/redemptions', { email: s.student.login_email.toUpperCase() });
      expect(byEmail.body.data.items.map((r: { code: string }) => r.code)).toEqual([codes[0], codes[2]]);
      const byId = await get(s.key, '/coupons/redemptions', { email: other.id });
      expect(byId.body.data.items.map((r: { code: string }) => r.code)).toEqual([codes[1]]);
      const since = await get(s.key, '/coupons/redemptions', { since: cut });
      expect(since.body.data.items.map((r: { code: string }) => r.code)).toEqual([codes[2]]);
      const page = await get(s.key, '/coupons/redemptions', { page: 2, limit: 2 });
      expect(page.body.data).toMatchObject({ total: 3, totalPages: 2, page: 2, limit: 2 });
      expect(page.body.data.items.map((r: { code: string }) => r.code)).toEqual([codes[2]]);
      const unknown = await get(s.key, '/coupons/redemptions', { email: 'nobody@nowhere.example' });
      expect(unknown.body.data).toMatchObject({ items: [], total: 0 });
      expectError(await get(s.key, '/coupons/redemptions', { since: 'yesterday' }), 422, 'validation_error');
    });

    it("never shows another institution's redemptions, even filtered by their student", async () => {
      const a = await school();
      const b = await school();
      const theirs = await approvedBatch(b);
      await redeem(await sessionOf(b.key, b.student), theirs.codes[0]);
      expect((await get(a.key, '/coupons/redemptions')).body.data.total).toBe(0);
      expect((await get(a.key, '/coupons/redemptions', { email: b.student.login_email })).body.data.total).toBe(0);
      expect((await get(b.key, '/coupons/redemptions')).body.data.total).toBe(1);
    });
  });

  describe('scopes', () => {
    const cases: Array<[string, (key: TestKey, batchId: string) => Promise<{ status: number; body: Record<string, unknown> }>, Scope, Scope[]]> = [
      ['GET /coupons/batches', (key) => get(key, '/coupons/batches'), 'coupons:read', ['coupons:read', 'coupons:write']],
      ['GET /coupons/batches/{id}', (key, id) => get(key, `/coupons/batches/${id}`), 'coupons:read', ['coupons:read', 'coupons:write']],
      ['GET /coupons/redemptions', (key) => get(key, '/coupons/redemptions'), 'coupons:read', ['coupons:read', 'coupons:write']],
      [
        'POST /coupons/batches',
        (key) => post(key, '/coupons/batches', { name: 'x', total_coupons: 1, value_cents: 1, expiry_date: inDays(1) }),
        'coupons:write',
        ['coupons:write'],
      ],
    ];

    it.each(cases)('%s needs %s', async (_label, call, required, granting) => {
      const s = await school();
      const batch = await createBatch(s.key);
      const denied = await makeKey(app, s.inst, { scopes: ['merits:write', 'students:write'] });
      const res = await call(denied, batch.id);
      expectError(res, 403, 'insufficient_scope');
      expect(res.body.missing).toEqual([required]);
      if (required === 'coupons:write') {
        expectError(await call(await makeKey(app, s.inst, { scopes: ['coupons:read'] }), batch.id), 403, 'insufficient_scope');
      }
      for (const scope of granting) {
        const allowed = await call(await makeKey(app, s.inst, { scopes: [scope] }), batch.id);
        expect(allowed.status, `${scope}: ${JSON.stringify(allowed.body)}`).toBe(200);
      }
    });
  });
});
