// @tier integration
// @databases sqlite, postgres
import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { examWithAiPolicy, startAttemptAs } from '../../../tests/helpers/ai-attempts.js';
import { cliFails, runCliCaptured, type CliResult } from '../../../tests/helpers/cli.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const CREDIT_FIELDS = ['amount_cents', 'balance_cents', 'credit_id', 'email', 'ref', 'replayed'];
const LEDGER_FIELDS = ['amount_cents', 'created_at', 'email', 'id', 'kind', 'reason', 'ref'];
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

type Person = TestPerson;

interface LedgerRow {
  id: string;
  email: string;
  kind: 'credit' | 'spend' | 'coupon';
  amount_cents: number;
  reason: string;
  ref: string | null;
  created_at: string;
}

type Res = Response;

describe('Merits', () => {
  let app: TestAppliance;
  beforeAll(async () => {
    app = await startTestAppliance();
  });
  afterAll(() => app.close());

  type School = TestSchool & { eventsKey: TestKey; student: Person };

  const { get, post } = requestsAs(() => app);

  const cli = (...argv: string[]): Promise<CliResult> => runCliCaptured(app, ...argv);

  async function setAllowance(s: School, cents: number) {
    const result = await cli('merits', 'allowance', '--institution', s.inst.id, '--cents', String(cents));
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as { total_cents: number; used_cents: number; remaining_cents: number };
  }

  const person = (key: TestKey, role: 'students' | 'faculty', fullName: string) => makePerson(app, key, role, fullName);

  async function school(allowance?: number): Promise<School> {
    const base = await makeSchool(app, { eventsKey: true });
    const s = { ...base, student: await person(base.key, 'students', 'Ada Lovelace') };
    if (allowance !== undefined) await setAllowance(s, allowance);
    return s;
  }

  const sessionOf = (key: TestKey, who: Person) => learnerSession(app, key, who);

  /** Spends are recorded on an open attempt: a student's session gets one on an exam whose AI policy has no cap. */
  const attemptOf = new Map<string, string>();
  async function spenderOf(s: School, who: Person = s.student): Promise<string> {
    const session = await sessionOf(s.key, who);
    const { examId } = await examWithAiPolicy(app, s, [who], { allowed: true });
    attemptOf.set(session, await startAttemptAs(app, session, examId));
    return session;
  }

  const spend = (session: string, body: object) =>
    app.http
      .post('/v1/app/ai/usage')
      .set('Authorization', `Bearer ${session}`)
      .send({ attempt_id: attemptOf.get(session) ?? 'att_none', ...body });

  let refs = 0;
  const nextRef = () => `ref-${Date.now()}-${(refs += 1)}`;
  const credit = (s: School, body: Record<string, unknown> = {}, who: Person = s.student) =>
    post(s.key, '/merits/credits', { email: who.login_email, amount_cents: 100, reason: 'Science fair', ref: nextRef(), ...body });

  const allowance = async (s: School) =>
    (await get(s.key, '/merits/allowance')).body.data as { total_cents: number; used_cents: number; remaining_cents: number };
  const wallet = async (s: School, ref: string = s.student.login_email) => {
    const res = await get(s.key, `/merits/wallets/${ref}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as { email: string; balance_cents: number; ledger: LedgerRow[] };
  };

  const events = (s: School, type: string) => readEvents(app, s.eventsKey, type);

  const expectError = (res: Res, status: number, code: string) => {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body).toMatchObject({ success: false, error: code });
    expect(typeof res.body.message).toBe('string');
  };

  const db = () => app.ctx.db;

  /**
   * The books balance: every wallet equals the sum of its ledger rows and its newest row's running
   * balance; none is negative; the allowance's used_cents equals the sum of the credit rows.
   */
  async function expectBooksBalance(s: School) {
    const { MeritWallet, MeritLedgerEntry, MeritAllowance } = db().models;
    const wallets = await MeritWallet.findAll({ where: { institution_id: s.inst.id } });
    const rows = await MeritLedgerEntry.findAll({ where: { institution_id: s.inst.id }, order: [['created_at', 'ASC']] });
    for (const w of wallets) {
      const own = rows.filter((row) => row.student_id === w.student_id);
      const sum = own.reduce((total, row) => total + Number(row.amount_cents), 0);
      expect(Number(w.balance_cents)).toBe(sum);
      expect(Number(w.balance_cents)).toBeGreaterThanOrEqual(0);
      expect(Number(own.at(-1)?.balance_after_cents ?? 0)).toBe(sum);
      // Every running balance along the way was non-negative too.
      let running = 0;
      for (const row of own) {
        running += Number(row.amount_cents);
        expect(Number(row.balance_after_cents)).toBe(running);
        expect(running).toBeGreaterThanOrEqual(0);
      }
    }
    expect(new Set(rows.map((row) => row.student_id))).toEqual(new Set(wallets.map((w) => w.student_id)));
    const credited = rows.filter((row) => row.kind === 'credit').reduce((total, row) => total + Number(row.amount_cents), 0);
    const granted = await MeritAllowance.findOne({ where: { institution_id: s.inst.id } });
    expect(Number(granted?.used_cents ?? 0)).toBe(credited);
    expect(Number(granted?.used_cents ?? 0)).toBeLessThanOrEqual(Number(granted?.total_cents ?? 0));
    // Ledger timestamps are strictly increasing within the institution.
    for (let i = 1; i < rows.length; i += 1) expect(rows[i]!.created_at.getTime()).toBeGreaterThan(rows[i - 1]!.created_at.getTime());
  }

  describe('allowance: CLI `merits allowance` and GET /v1/merits/allowance', () => {
    it('zeros until granted; the CLI sets total_cents and prints the allowance; the API sees it at once', async () => {
      const s = await school();
      expect(await allowance(s)).toEqual({ total_cents: 0, used_cents: 0, remaining_cents: 0 });
      expect(await setAllowance(s, 50_000)).toEqual({ total_cents: 50_000, used_cents: 0, remaining_cents: 50_000 });
      expect(await allowance(s)).toEqual({ total_cents: 50_000, used_cents: 0, remaining_cents: 50_000 });

      expect((await credit(s, { amount_cents: 20_000 })).status).toBe(200);
      expect(await allowance(s)).toEqual({ total_cents: 50_000, used_cents: 20_000, remaining_cents: 30_000 });
      // Raising and lowering (not below what was used) both work; used_cents is kept.
      expect(await setAllowance(s, 90_000)).toEqual({ total_cents: 90_000, used_cents: 20_000, remaining_cents: 70_000 });
      expect(await setAllowance(s, 20_000)).toEqual({ total_cents: 20_000, used_cents: 20_000, remaining_cents: 0 });
      // Without --cents it only shows.
      const shown = await cli('merits', 'allowance', '--institution', s.inst.id);
      expect(shown.code).toBe(0);
      expect(JSON.parse(shown.stdout)).toEqual({ total_cents: 20_000, used_cents: 20_000, remaining_cents: 0 });
    });

    it('below used_cents: exit 1 conflict, unchanged', async () => {
      const s = await school(1000);
      expect((await credit(s, { amount_cents: 600 })).status).toBe(200);
      cliFails(await cli('merits', 'allowance', '--institution', s.inst.id, '--cents', '599'), 'conflict');
      expect(await allowance(s)).toEqual({ total_cents: 1000, used_cents: 600, remaining_cents: 400 });
      expect(await setAllowance(s, 600)).toEqual({ total_cents: 600, used_cents: 600, remaining_cents: 0 });
    });

    it('bad values: exit 1 validation_error; unknown institution: exit 1 not_found; no --institution: usage (2)', async () => {
      const s = await school(100);
      for (const bad of ['abc', '12.5', '1e3', '', '1000000000001']) {
        cliFails(await cli('merits', 'allowance', '--institution', s.inst.id, '--cents', bad), 'validation_error');
      }
      expect(await allowance(s)).toEqual({ total_cents: 100, used_cents: 0, remaining_cents: 100 });
      cliFails(await cli('merits', 'allowance', '--institution', 'inst_nope', '--cents', '5'), 'not_found');
      cliFails(await cli('merits', 'allowance', '--institution', 'inst_nope'), 'not_found');
      expect((await cli('merits', 'allowance', '--cents', '5')).code).toBe(2);
      // 0 is a valid total.
      expect(await setAllowance(s, 0)).toEqual({ total_cents: 0, used_cents: 0, remaining_cents: 0 });
    });
  });

  describe('POST /v1/merits/credits', () => {
    it('credits: exactly the documented fields; wallet, allowance, ledger and one merit.credited event', async () => {
      const s = await school(10_000);
      const res = await credit(s, { amount_cents: 2500, reason: ' Science fair winner ', ref: 'sis-award-1', email: s.student.login_email.toUpperCase() });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const data = res.body.data;
      expect(Object.keys(data).sort()).toEqual(CREDIT_FIELDS);
      expect(data).toMatchObject({ email: s.student.login_email, amount_cents: 2500, balance_cents: 2500, ref: 'sis-award-1', replayed: false });
      expect(data.credit_id).toMatch(/^mle_[A-Za-z0-9]{24}$/);

      expect(await allowance(s)).toEqual({ total_cents: 10_000, used_cents: 2500, remaining_cents: 7500 });
      const w = await wallet(s);
      expect(w.balance_cents).toBe(2500);
      expect(w.ledger).toHaveLength(1);
      expect(Object.keys(w.ledger[0]!).sort()).toEqual(LEDGER_FIELDS);
      expect(w.ledger[0]).toMatchObject({
        id: data.credit_id,
        email: s.student.login_email,
        kind: 'credit',
        amount_cents: 2500,
        reason: 'Science fair winner',
        ref: 'sis-award-1',
      });
      expect(w.ledger[0]!.created_at).toMatch(ISO_MS);

      const second = await credit(s, { amount_cents: 500 });
      expect(second.body.data.balance_cents).toBe(3000);

      const credited = await events(s, 'merit.*');
      expect(credited.map((e) => e.data)).toEqual([
        { credit_id: data.credit_id, student_id: s.student.id, amount_cents: 2500 },
        { credit_id: second.body.data.credit_id, student_id: s.student.id, amount_cents: 500 },
      ]);
      await expectBooksBalance(s);
    });

    it('the same ref and body again: the first result with replayed: true, nothing credited, no event', async () => {
      const s = await school(10_000);
      const body = { email: s.student.login_email, amount_cents: 700, reason: 'Attendance', ref: 'att-2026-09' };
      const first = await post(s.key, '/merits/credits', body);
      expect(first.status).toBe(200);
      // The wallet moves afterwards; the replay still answers the first balance.
      expect((await credit(s, { amount_cents: 300 })).status).toBe(200);

      const again = await post(s.key, '/merits/credits', body);
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(again.body.data).toEqual({ ...first.body.data, replayed: true });
      expect(again.body.data.balance_cents).toBe(700);
      // Email case and the reason's surrounding spaces do not make a different body.
      const normalized = await post(s.key, '/merits/credits', { ...body, email: body.email.toUpperCase(), reason: ' Attendance ' });
      expect(normalized.body.data).toEqual({ ...first.body.data, replayed: true });

      expect(await allowance(s)).toMatchObject({ used_cents: 1000 });
      expect((await wallet(s)).balance_cents).toBe(1000);
      expect(await events(s, 'merit.credited')).toHaveLength(2);
      await expectBooksBalance(s);
    });

    it('a replay is answered even when the allowance is spent or lowered since', async () => {
      const s = await school(500);
      const body = { email: s.student.login_email, amount_cents: 500, reason: 'All of it', ref: 'full' };
      expect((await post(s.key, '/merits/credits', body)).status).toBe(200);
      expect(await allowance(s)).toMatchObject({ remaining_cents: 0 });
      const again = await post(s.key, '/merits/credits', body);
      expect(again.status).toBe(200);
      expect(again.body.data.replayed).toBe(true);
    });

    it.each([
      ['amount_cents', { amount_cents: 701 }],
      ['reason', { reason: 'Attendance bonus' }],
      ['email', 'other'],
    ])('the same ref with a different %s: 409 conflict, nothing credited', async (_label, change) => {
      const s = await school(10_000);
      const other = await person(s.key, 'students', 'Alan Turing');
      const body = { email: s.student.login_email, amount_cents: 700, reason: 'Attendance', ref: 'dup-ref' };
      const first = await post(s.key, '/merits/credits', body);
      expect(first.status).toBe(200);
      const res = await post(s.key, '/merits/credits', change === 'other' ? { ...body, email: other.login_email } : { ...body, ...(change as object) });
      expectError(res, 409, 'conflict');
      expect(res.body.credit_id).toBe(first.body.data.credit_id);
      expect(await allowance(s)).toMatchObject({ used_cents: 700 });
      expect((await wallet(s, other.id)).balance_cents).toBe(0);
      expect(await events(s, 'merit.credited')).toHaveLength(1);
    });

    it('refs are per institution: the same ref in two institutions credits in both', async () => {
      const a = await school(1000);
      const b = await school(1000);
      expect((await credit(a, { ref: 'shared-ref' })).body.data.replayed).toBe(false);
      expect((await credit(b, { ref: 'shared-ref' })).body.data.replayed).toBe(false);
    });

    it("unknown student, a faculty member, or another institution's student: 404 user_not_found, nothing moves", async () => {
      const a = await school(1000);
      const b = await school(1000);
      const teacher = await person(a.key, 'faculty', 'Grace Hopper');
      for (const email of ['nobody@nowhere.example', teacher.login_email, b.student.login_email, a.student.id]) {
        expectError(await credit(a, { email }), 404, 'user_not_found');
      }
      expect(await allowance(a)).toMatchObject({ used_cents: 0 });
      expect(await allowance(b)).toMatchObject({ used_cents: 0 });
      expect(await db().models.MeritLedgerEntry.count({ where: { institution_id: [a.inst.id, b.inst.id] } })).toBe(0);
    });

    it('a suspended student can still be credited (the wallet waits for them)', async () => {
      const s = await school(1000);
      expect((await post(s.key, `/students/${s.student.id}/suspend`, {})).status).toBe(200);
      expect((await credit(s, { amount_cents: 100 })).status).toBe(200);
    });

    it('insufficient_allowance exactly past the boundary; exactly the remainder is fine', async () => {
      const s = await school(1000);
      expect((await credit(s, { amount_cents: 600 })).status).toBe(200);
      const over = await credit(s, { amount_cents: 401 });
      expectError(over, 409, 'insufficient_allowance');
      expect(over.body.remaining_cents).toBe(400);
      const exact = await credit(s, { amount_cents: 400 });
      expect(exact.status).toBe(200);
      expect(exact.body.data.balance_cents).toBe(1000);
      expect(await allowance(s)).toEqual({ total_cents: 1000, used_cents: 1000, remaining_cents: 0 });
      expectError(await credit(s, { amount_cents: 1 }), 409, 'insufficient_allowance');
      expect((await wallet(s)).balance_cents).toBe(1000);
      await expectBooksBalance(s);
    });

    it('no allowance granted: every credit is insufficient_allowance; a refused ref can be used once there is room', async () => {
      const s = await school();
      const body = { email: s.student.login_email, amount_cents: 50, reason: 'Later', ref: 'retry-me' };
      expectError(await post(s.key, '/merits/credits', body), 409, 'insufficient_allowance');
      await setAllowance(s, 50);
      const res = await post(s.key, '/merits/credits', body);
      expect(res.status).toBe(200);
      expect(res.body.data.replayed).toBe(false);
    });

    it.each([
      ['amount_cents 0', { amount_cents: 0 }],
      ['amount_cents -5', { amount_cents: -5 }],
      ['amount_cents 1000001', { amount_cents: 1_000_001 }],
      ['amount_cents 1.5', { amount_cents: 1.5 }],
      ['amount_cents "100"', { amount_cents: '100' }],
      ['reason empty', { reason: '' }],
      ['reason blank', { reason: '   ' }],
      ['reason 501 characters', { reason: 'x'.repeat(501) }],
      ['ref empty', { ref: '' }],
      ['ref 101 characters', { ref: 'x'.repeat(101) }],
      ['ref a number', { ref: 42 }],
      ['an unknown field', { student_id: 'stu_x' }],
      ['email missing', { email: undefined }],
    ])('%s: 422 validation_error', async (_label, override) => {
      const s = await school(10_000_000);
      expectError(await credit(s, override), 422, 'validation_error');
      expect(await allowance(s)).toMatchObject({ used_cents: 0 });
    });

    it('the largest credit, 1000000 cents, is accepted', async () => {
      const s = await school(1_000_000);
      expect((await credit(s, { amount_cents: 1_000_000 })).body.data.balance_cents).toBe(1_000_000);
    });

    it('20 parallel identical requests: one credit, 19 replays of it; balance, allowance and events moved once', async () => {
      const s = await school(10_000);
      const body = { email: s.student.login_email, amount_cents: 1234, reason: 'Parallel', ref: 'parallel-1' };
      const results = await Promise.all(Array.from({ length: 20 }, () => post(s.key, '/merits/credits', body)));
      for (const res of results) expect(res.status, JSON.stringify(res.body)).toBe(200);
      const fresh = results.filter((res) => res.body.data.replayed === false);
      expect(fresh).toHaveLength(1);
      const creditId = fresh[0]!.body.data.credit_id;
      for (const res of results) {
        expect(res.body.data).toMatchObject({ credit_id: creditId, amount_cents: 1234, balance_cents: 1234, ref: 'parallel-1' });
      }
      expect((await wallet(s)).balance_cents).toBe(1234);
      expect(await allowance(s)).toEqual({ total_cents: 10_000, used_cents: 1234, remaining_cents: 8766 });
      expect(await db().models.MeritLedgerEntry.count({ where: { institution_id: s.inst.id } })).toBe(1);
      expect(await events(s, 'merit.credited')).toHaveLength(1);
      await expectBooksBalance(s);
    });

    it('parallel distinct credits beyond the allowance: exactly as many succeed as fit, never over', async () => {
      const s = await school(1000);
      const others = [s.student, await person(s.key, 'students', 'Alan Turing'), await person(s.key, 'students', 'Grace Hopper')];
      const results = await Promise.all(Array.from({ length: 15 }, (_x, i) => credit(s, { amount_cents: 100 }, others[i % 3])));
      expect(results.filter((res) => res.status === 200)).toHaveLength(10);
      for (const res of results.filter((r) => r.status !== 200)) expectError(res, 409, 'insufficient_allowance');
      expect(await allowance(s)).toEqual({ total_cents: 1000, used_cents: 1000, remaining_cents: 0 });
      await expectBooksBalance(s);
    });

    it('the operator lowers the allowance while credits run: never overdrawn', async () => {
      const s = await school(5000);
      const calls = Array.from({ length: 30 }, () => credit(s, { amount_cents: 100 }));
      const lowering = cli('merits', 'allowance', '--institution', s.inst.id, '--cents', '1500');
      const [results, lowered] = await Promise.all([Promise.all(calls), lowering]);
      const granted = await allowance(s);
      if (lowered.code === 0) expect(granted.total_cents).toBe(1500);
      else cliFails(lowered, 'conflict'); // credits had already drawn more than 1500
      expect(granted.used_cents).toBe(results.filter((res) => res.status === 200).length * 100);
      expect(granted.used_cents).toBeLessThanOrEqual(granted.total_cents);
      await expectBooksBalance(s);
    });
  });

  describe('GET /v1/merits/wallets/{email}', () => {
    it('a student never credited: balance 0, empty ledger; by login email (any case) or id', async () => {
      const s = await school();
      expect(await wallet(s)).toEqual({ email: s.student.login_email, balance_cents: 0, ledger: [] });
      expect((await wallet(s, s.student.login_email.toUpperCase())).email).toBe(s.student.login_email);
      expect((await wallet(s, s.student.id)).email).toBe(s.student.login_email);
    });

    it("unknown, faculty, or another institution's student: 404 user_not_found", async () => {
      const a = await school();
      const b = await school(100);
      expect((await credit(b)).status).toBe(200);
      const teacher = await person(a.key, 'faculty', 'Grace Hopper');
      for (const ref of ['nobody@nowhere.example', teacher.login_email, b.student.login_email, b.student.id]) {
        expectError(await get(a.key, `/merits/wallets/${encodeURIComponent(ref)}`), 404, 'user_not_found');
      }
    });

    it('shows the newest 50 rows, newest first, and a balance that matches them', async () => {
      const s = await school(10_000);
      expect((await credit(s, { amount_cents: 5000, ref: 'big' })).status).toBe(200);
      const session = await spenderOf(s);
      for (let i = 1; i <= 54; i += 1) expect((await spend(session, { cost_cents: i, interactions: 1 })).status).toBe(200);
      const spent = (54 * 55) / 2;
      const w = await wallet(s);
      expect(w.balance_cents).toBe(5000 - spent);
      expect(w.ledger).toHaveLength(50);
      expect(w.ledger.map((row) => row.amount_cents)).toEqual(Array.from({ length: 50 }, (_x, i) => -(54 - i)));
      expect(w.ledger.every((row) => row.kind === 'spend' && row.ref === attemptOf.get(session))).toBe(true);
      const all = await get(s.key, '/merits/ledger', { email: s.student.login_email, limit: 200 });
      expect(all.body.data.total).toBe(55);
      await expectBooksBalance(s);
    });
  });

  describe('GET /v1/merits/ledger', () => {
    it('every movement, oldest first, with filters email and since, paged', async () => {
      const s = await school(10_000);
      const other = await person(s.key, 'students', 'Alan Turing');
      const c1 = await credit(s, { amount_cents: 1000, reason: 'First', ref: 'l-1' });
      const c2 = await credit(s, { amount_cents: 300, reason: 'Second', ref: 'l-2' }, other);
      await sleep(5);
      const cut = new Date().toISOString();
      await sleep(5);
      const session = await spenderOf(s);
      expect((await spend(session, { cost_cents: 250, interactions: 5 })).body.data).toEqual({
        cost_cents_total: 250,
        interactions_total: 5,
        balance_cents: 750,
      });

      const all = await get(s.key, '/merits/ledger');
      expect(all.status).toBe(200);
      expect(all.body.data).toMatchObject({ page: 1, limit: 50, total: 3, totalPages: 1 });
      const items = all.body.data.items as LedgerRow[];
      for (const item of items) expect(Object.keys(item).sort()).toEqual(LEDGER_FIELDS);
      expect(items.map((row) => [row.kind, row.email, row.amount_cents, row.reason, row.ref])).toEqual([
        ['credit', s.student.login_email, 1000, 'First', 'l-1'],
        ['credit', other.login_email, 300, 'Second', 'l-2'],
        ['spend', s.student.login_email, -250, 'AI usage: 5 interactions', attemptOf.get(session)],
      ]);
      expect(items[0]!.id).toBe(c1.body.data.credit_id);
      expect(items[1]!.id).toBe(c2.body.data.credit_id);

      const mine = await get(s.key, '/merits/ledger', { email: s.student.login_email.toUpperCase() });
      expect(mine.body.data.items.map((row: LedgerRow) => row.kind)).toEqual(['credit', 'spend']);
      const theirs = await get(s.key, '/merits/ledger', { email: other.id });
      expect(theirs.body.data.items.map((row: LedgerRow) => row.ref)).toEqual(['l-2']);
      const since = await get(s.key, '/merits/ledger', { since: cut });
      expect(since.body.data.items.map((row: LedgerRow) => row.kind)).toEqual(['spend']);
      const inclusive = await get(s.key, '/merits/ledger', { since: items[1]!.created_at });
      expect(inclusive.body.data.items.map((row: LedgerRow) => row.id)).toEqual([items[1]!.id, items[2]!.id]);
      const page = await get(s.key, '/merits/ledger', { page: 2, limit: 2 });
      expect(page.body.data).toMatchObject({ page: 2, limit: 2, total: 3, totalPages: 2 });
      expect(page.body.data.items.map((row: LedgerRow) => row.id)).toEqual([items[2]!.id]);
      expect((await get(s.key, '/merits/ledger', { email: 'nobody@nowhere.example' })).body.data).toMatchObject({ items: [], total: 0 });
      expect((await get(s.key, '/merits/ledger', { since: new Date(Date.now() + 60_000).toISOString() })).body.data.total).toBe(0);
    });

    it.each<Record<string, string | number>>([{ since: 'yesterday' }, { limit: 201 }, { page: 0 }, { kind: 'credit' }])(
      'query %o: 422 validation_error',
      async (query) => {
        const s = await school();
        expectError(await get(s.key, '/merits/ledger', query), 422, 'validation_error');
      },
    );

    it("never shows another institution's rows", async () => {
      const a = await school(1000);
      const b = await school(1000);
      expect((await credit(b)).status).toBe(200);
      expect((await get(a.key, '/merits/ledger')).body.data.total).toBe(0);
      expect((await get(a.key, '/merits/ledger', { email: b.student.login_email })).body.data.total).toBe(0);
      expect((await get(b.key, '/merits/ledger')).body.data.total).toBe(1);
    });
  });

  describe('POST /v1/app/ai/usage', () => {
    it('spends from the wallet; exactly the balance is fine; more is insufficient_allowance and spends nothing', async () => {
      const s = await school(1000);
      expect((await credit(s, { amount_cents: 1000 })).status).toBe(200);
      const session = await spenderOf(s);
      const first = await spend(session, { cost_cents: 400, interactions: 1 });
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.body.data).toEqual({ cost_cents_total: 400, interactions_total: 1, balance_cents: 600 });

      const over = await spend(session, { cost_cents: 601, interactions: 2 });
      expectError(over, 409, 'insufficient_allowance');
      expect(over.body.balance_cents).toBe(600);
      expect((await wallet(s)).balance_cents).toBe(600);

      expect((await spend(session, { cost_cents: 600, interactions: 2 })).body.data.balance_cents).toBe(0);
      expectError(await spend(session, { cost_cents: 1, interactions: 0 }), 409, 'insufficient_allowance');
      // Spending never touches the institution allowance.
      expect(await allowance(s)).toEqual({ total_cents: 1000, used_cents: 1000, remaining_cents: 0 });
      const rows = (await wallet(s)).ledger;
      expect(rows.map((row) => [row.kind, row.amount_cents, row.reason])).toEqual([
        ['spend', -600, 'AI usage: 2 interactions'],
        ['spend', -400, 'AI usage: 1 interaction'],
        ['credit', 1000, 'Science fair'],
      ]);
      await expectBooksBalance(s);
    });

    it('a cost of 0 writes no row and answers the balance, even with an empty wallet', async () => {
      const s = await school();
      const session = await spenderOf(s);
      expect((await spend(session, { cost_cents: 0, interactions: 3 })).body.data).toEqual({ cost_cents_total: 0, interactions_total: 3, balance_cents: 0 });
      expect((await wallet(s)).ledger).toHaveLength(0);
      expectError(await spend(session, { cost_cents: 1, interactions: 1 }), 409, 'insufficient_allowance');
    });

    it.each([
      ['cost_cents -1', { cost_cents: -1, interactions: 0 }],
      ['cost_cents 1.5', { cost_cents: 1.5, interactions: 0 }],
      ['interactions -1', { cost_cents: 1, interactions: -1 }],
      ['interactions 2.5', { cost_cents: 1, interactions: 2.5 }],
      ['cost_cents missing', { interactions: 1 }],
      ['interactions missing', { cost_cents: 1 }],
      ['cost_cents over 1000000', { cost_cents: 1_000_001, interactions: 1 }],
      ['an unknown field', { cost_cents: 1, interactions: 1, ref: 'x' }],
      ['attempt_id missing', { attempt_id: undefined, cost_cents: 1, interactions: 1 }],
      ['attempt_id empty', { attempt_id: '', cost_cents: 1, interactions: 1 }],
    ])('%s: 422 validation_error', async (_label, body) => {
      const s = await school(100);
      expect((await credit(s, { amount_cents: 100 })).status).toBe(200);
      expectError(await spend(await spenderOf(s), body), 422, 'validation_error');
      expect((await wallet(s)).balance_cents).toBe(100);
    });

    it("a faculty member's session: 403 forbidden", async () => {
      const s = await school();
      const teacher = await person(s.key, 'faculty', 'Grace Hopper');
      expectError(await spend(await sessionOf(s.key, teacher), { cost_cents: 1, interactions: 1 }), 403, 'forbidden');
    });

    it('parallel spends that together exceed the balance: as many as fit succeed, the balance never goes negative', async () => {
      const s = await school(1000);
      expect((await credit(s, { amount_cents: 1000 })).status).toBe(200);
      const session = await spenderOf(s);
      const results = await Promise.all(Array.from({ length: 25 }, () => spend(session, { cost_cents: 100, interactions: 1 })));
      expect(results.filter((res) => res.status === 200)).toHaveLength(10);
      for (const res of results.filter((r) => r.status !== 200)) expectError(res, 409, 'insufficient_allowance');
      expect(
        results
          .filter((res) => res.status === 200)
          .map((res) => res.body.data.balance_cents as number)
          .sort((x, y) => x - y),
      ).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900]);
      expect((await wallet(s)).balance_cents).toBe(0);
      await expectBooksBalance(s);
    });

    it('parallel spends, credits and coupon redemptions interleaved: the books still balance', async () => {
      const s = await school(3000);
      const batch = await post(s.key, '/coupons/batches', {
        name: 'Mixed',
        total_coupons: 5,
        value_cents: 40,
        expiry_date: new Date(Date.now() + 86_400_000).toISOString(),
      });
      expect((await cli('coupons', 'approve', batch.body.data.id)).code).toBe(0);
      const codes = (await get(s.key, `/coupons/batches/${batch.body.data.id}`)).body.data.codes.map((c: { code: string }) => c.code) as string[];
      const session = await spenderOf(s);
      const redeem = (code: string) => app.http.post('/v1/app/coupons/redeem').set('Authorization', `Bearer ${session}`).send({ code });
      const calls: Array<Promise<Res>> = [];
      for (let i = 0; i < 10; i += 1) {
        calls.push(credit(s, { amount_cents: 150 }));
        calls.push(spend(session, { cost_cents: 90, interactions: 1 }));
        if (i < 5) calls.push(redeem(codes[i]!));
      }
      const results = await Promise.all(calls);
      for (const res of results) expect([200, 409]).toContain(res.status);
      await expectBooksBalance(s);
      const okSpends = results.filter((res) => res.status === 200 && 'cost_cents_total' in res.body.data).length;
      expect((await wallet(s)).balance_cents).toBe(10 * 150 + 5 * 40 - okSpends * 90);
      expect(await allowance(s)).toMatchObject({ used_cents: 1500 });
    });
  });

  describe('scopes', () => {
    const cases: Array<[string, (s: School) => Promise<Res>, Scope, Scope[]]> = [
      ['GET /merits/allowance', (s) => get(s.key, '/merits/allowance'), 'merits:read', ['merits:read', 'merits:write']],
      ['GET /merits/wallets/{email}', (s) => get(s.key, `/merits/wallets/${s.student.login_email}`), 'merits:read', ['merits:read', 'merits:write']],
      ['GET /merits/ledger', (s) => get(s.key, '/merits/ledger'), 'merits:read', ['merits:read', 'merits:write']],
      ['POST /merits/credits', (s) => credit(s), 'merits:write', ['merits:write']],
    ];

    it.each(cases)('%s needs %s', async (_label, call, required, granting) => {
      const s = await school(1_000_000);
      const denied = await makeKey(app, s.inst, { scopes: ['coupons:write', 'students:write'] });
      const res = await call({ ...s, key: denied });
      expectError(res, 403, 'insufficient_scope');
      expect(res.body.missing).toEqual([required]);
      if (required === 'merits:write') {
        expectError(await call({ ...s, key: await makeKey(app, s.inst, { scopes: ['merits:read'] }) }), 403, 'insufficient_scope');
        expect(await allowance(s)).toMatchObject({ used_cents: 0 });
      }
      for (const scope of granting) {
        const allowed = await call({ ...s, key: await makeKey(app, s.inst, { scopes: [scope] }) });
        expect(allowed.status, `${scope}: ${JSON.stringify(allowed.body)}`).toBe(200);
      }
    });
  });
});
