// @tier integration
// @databases sqlite, postgres
import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAllowance } from '../../commands/wallet/merits.js';
import { examWithAiPolicy, startAttemptAs, type AiPolicy } from '../../../tests/helpers/ai-attempts.js';
import {
  learnerSession,
  makePerson,
  makeSchool,
  requestsAs,
  startTestAppliance,
  type TestAppliance,
  type TestPerson,
  type TestSchool,
} from '../../../tests/helpers/appliance.js';

interface LedgerRow {
  kind: string;
  email: string;
  amount_cents: number;
  reason: string;
  ref: string | null;
}

/** AI usage recorded per attempt (docs/decisions/ai-usage.md), checked against the exam's policy and paid from the wallet. */
describe('POST /v1/app/ai/usage and the submission’s ai_usage', () => {
  let app: TestAppliance;
  beforeAll(async () => {
    app = await startTestAppliance();
  });
  afterAll(() => app.close());

  const { get, post } = requestsAs(() => app);

  interface Class extends TestSchool {
    student: TestPerson;
    other: TestPerson;
    session: string;
    examId: string;
    attemptId: string;
  }

  /** A school whose student holds `walletCents`, with an open attempt on an exam of this AI policy. */
  async function classWith(aiPolicy: AiPolicy, walletCents = 1000): Promise<Class> {
    const s = await makeSchool(app);
    const student = await makePerson(app, s.key, 'students', 'Ada Lovelace');
    const other = await makePerson(app, s.key, 'students', 'Alan Turing');
    if (walletCents > 0) {
      await setAllowance(app.ctx.db, s.inst.id, walletCents);
      const credit = await post(s.key, '/merits/credits', { email: student.login_email, amount_cents: walletCents, reason: 'Prize', ref: 'prize-1' });
      expect(credit.status, JSON.stringify(credit.body)).toBe(200);
    }
    const { examId } = await examWithAiPolicy(app, s, [student, other], aiPolicy);
    const session = await learnerSession(app, s.key, student);
    return { ...s, student, other, session, examId, attemptId: await startAttemptAs(app, session, examId) };
  }

  const report = (session: string, body: object) => app.http.post('/v1/app/ai/usage').set('Authorization', `Bearer ${session}`).send(body);
  const use = (c: Class, interactions: number, costCents: number, attemptId = c.attemptId) =>
    report(c.session, { attempt_id: attemptId, interactions, cost_cents: costCents });

  const expectError = (res: Response, status: number, code: string) => {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body).toMatchObject({ success: false, error: code });
    expect(typeof res.body.message).toBe('string');
  };

  /** What the appliance holds: the attempt's recorded totals, the wallet balance and the ledger rows. */
  async function books(c: Class, attemptId = c.attemptId) {
    const attempt = await app.ctx.db.models.Attempt.findByPk(attemptId);
    const wallet = await get(c.key, `/merits/wallets/${c.student.id}`);
    const ledger = await get(c.key, '/merits/ledger', { limit: 200 });
    return {
      recorded: { interactions: attempt?.ai_interactions, cost_cents: Number(attempt?.ai_cost_cents) },
      balance: wallet.body.data.balance_cents as number,
      ledger: (ledger.body.data.items as LedgerRow[]).map((row) => [row.kind, row.amount_cents, row.ref]),
    };
  }

  const untouched = (walletCents: number) => ({
    recorded: { interactions: 0, cost_cents: 0 },
    balance: walletCents,
    ledger: walletCents > 0 ? [['credit', walletCents, 'prize-1']] : [],
  });

  it('accumulates per attempt, pays each cost from the wallet with a spend row that names the attempt', async () => {
    const c = await classWith({ allowed: true, model_tier: 'standard', max_interactions: 10 });
    const first = await use(c, 3, 120);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toEqual({ interactions_total: 3, cost_cents_total: 120, balance_cents: 880 });
    expect((await use(c, 2, 0)).body.data).toEqual({ interactions_total: 5, cost_cents_total: 120, balance_cents: 880 });
    expect((await use(c, 5, 80)).body.data).toEqual({ interactions_total: 10, cost_cents_total: 200, balance_cents: 800 });

    expect(await books(c)).toEqual({
      recorded: { interactions: 10, cost_cents: 200 },
      balance: 800,
      ledger: [
        ['credit', 1000, 'prize-1'],
        ['spend', -120, c.attemptId],
        ['spend', -80, c.attemptId],
      ],
    });
  });

  it('an exam whose ai_policy does not allow the assistant: 403 forbidden, nothing recorded or spent (allowed absent counts as not allowed)', async () => {
    for (const policy of [{ allowed: false, max_interactions: 0 }, { allowed: false, max_interactions: 50 }, {}]) {
      const c = await classWith(policy);
      expectError(await use(c, 57, 999), 403, 'forbidden');
      expectError(await use(c, 0, 0), 403, 'forbidden');
      expect(await books(c)).toEqual(untouched(1000));
    }
  });

  it('a total above max_interactions: 409 conflict, nothing recorded or spent; exactly the max is fine', async () => {
    const c = await classWith({ allowed: true, max_interactions: 5 });
    expect((await use(c, 4, 40)).status).toBe(200);
    const over = await use(c, 2, 20);
    expectError(over, 409, 'conflict');
    expect(over.body).toMatchObject({ interactions_total: 4, max_interactions: 5 });
    expect((await books(c)).recorded).toEqual({ interactions: 4, cost_cents: 40 });
    expect((await books(c)).balance).toBe(960);
    expect((await use(c, 1, 10)).body.data).toEqual({ interactions_total: 5, cost_cents_total: 50, balance_cents: 950 });
    expectError(await use(c, 1, 0), 409, 'conflict');
    expect((await books(c)).recorded).toEqual({ interactions: 5, cost_cents: 50 });
  });

  it('more than the wallet holds: 409 insufficient_allowance, and the interactions are not recorded either', async () => {
    const c = await classWith({ allowed: true, max_interactions: 100 }, 100);
    const over = await use(c, 3, 101);
    expectError(over, 409, 'insufficient_allowance');
    expect(over.body.balance_cents).toBe(100);
    expect(await books(c)).toEqual(untouched(100));
    expect((await use(c, 3, 100)).body.data).toEqual({ interactions_total: 3, cost_cents_total: 100, balance_cents: 0 });
  });

  it("another student's attempt, an unknown one, a submitted, expired or closed one: the same 409 conflict, nothing recorded", async () => {
    const c = await classWith({ allowed: true, max_interactions: 100 });
    const otherSession = await learnerSession(app, c.key, c.other);
    const othersAttempt = await startAttemptAs(app, otherSession, c.examId);
    expectError(await use(c, 1, 10, othersAttempt), 409, 'conflict');
    expectError(await use(c, 1, 10, 'att_doesnotexist'), 409, 'conflict');
    expect((await books(c, othersAttempt)).recorded).toEqual({ interactions: 0, cost_cents: 0 });

    // Time run out.
    await app.ctx.db.models.Attempt.update({ expires_at: new Date(Date.now() - 1000) }, { where: { id: othersAttempt } });
    expectError(await report(otherSession, { attempt_id: othersAttempt, interactions: 1, cost_cents: 0 }), 409, 'conflict');

    // Submitted.
    const submitted = await app.http.post(`/v1/app/attempts/${c.attemptId}/submit`).set('Authorization', `Bearer ${c.session}`).send({});
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    expectError(await use(c, 1, 10), 409, 'conflict');
    expect(await books(c)).toEqual(untouched(1000));

    // Exam closed while an attempt is open.
    const d = await classWith({ allowed: true });
    expect((await post(d.key, `/exams/${d.examId}/close`)).status).toBe(200);
    expectError(await use(d, 1, 10), 409, 'conflict');
    expect(await books(d)).toEqual(untouched(1000));
  });

  it("submit stores the recorded usage and ignores the body's ai_usage; GET /submissions/{id} shows it", async () => {
    const c = await classWith({ allowed: true, max_interactions: 20 });
    expect((await use(c, 7, 42)).status).toBe(200);
    const submitted = await app.http
      .post(`/v1/app/attempts/${c.attemptId}/submit`)
      .set('Authorization', `Bearer ${c.session}`)
      .send({ answers: { essay: '…' }, ai_usage: { interactions: 0, cost_cents: 0 } });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    const detail = await get(c.key, `/submissions/${submitted.body.data.id}`);
    expect(detail.status, JSON.stringify(detail.body)).toBe(200);
    expect(detail.body.data.ai_usage).toEqual({ interactions: 7, cost_cents: 42 });

    // A claim of usage that was never recorded (what submits carried before usage was recorded) is ignored too.
    const d = await classWith({ allowed: false, max_interactions: 0 });
    const claimed = await app.http
      .post(`/v1/app/attempts/${d.attemptId}/submit`)
      .set('Authorization', `Bearer ${d.session}`)
      .send({ ai_usage: { interactions: 57, cost_cents: 999 } });
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
    expect((await get(d.key, `/submissions/${claimed.body.data.id}`)).body.data.ai_usage).toEqual({ interactions: 0, cost_cents: 0 });
    expect(await books(d)).toEqual(untouched(1000));
  });

  it('two concurrent reports that together exceed max_interactions: exactly one succeeds, and only it is paid', async () => {
    const c = await classWith({ allowed: true, max_interactions: 5 });
    const results = await Promise.all([use(c, 3, 30), use(c, 3, 30)]);
    expect(results.map((res) => res.status).sort()).toEqual([200, 409]);
    expectError(
      results.find((res) => res.status === 409)!,
      409,
      'conflict',
    );
    expect(await books(c)).toEqual({
      recorded: { interactions: 3, cost_cents: 30 },
      balance: 970,
      ledger: [
        ['credit', 1000, 'prize-1'],
        ['spend', -30, c.attemptId],
      ],
    });

    // Many at once: the cap and the wallet both hold.
    const d = await classWith({ allowed: true, max_interactions: 10 }, 50);
    const many = await Promise.all(Array.from({ length: 12 }, () => use(d, 1, 10)));
    expect(many.filter((res) => res.status === 200)).toHaveLength(5);
    for (const res of many.filter((r) => r.status !== 200)) expectError(res, 409, 'insufficient_allowance');
    expect((await books(d)).recorded).toEqual({ interactions: 5, cost_cents: 50 });
    expect((await books(d)).balance).toBe(0);
  });

  it('reports on two attempts of one student racing for one wallet: the wallet holds, each refusal is 409, never a 5xx', async () => {
    // The attempts are different rows, so only the wallet is shared: the writes of one
    // institution take turns (SQLite's one writer, the institution's lock on PostgreSQL).
    const c = await classWith({ allowed: true, max_interactions: 100 }, 50);
    const { examId: secondExam } = await examWithAiPolicy(app, c, [c.student], { allowed: true, max_interactions: 100 });
    const secondAttempt = await startAttemptAs(app, c.session, secondExam);
    const racing = await Promise.all(Array.from({ length: 10 }, (_, i) => use(c, 1, 10, i % 2 === 0 ? c.attemptId : secondAttempt)));
    expect(racing.filter((res) => res.status === 200)).toHaveLength(5);
    for (const res of racing.filter((r) => r.status !== 200)) expectError(res, 409, 'insufficient_allowance');
    const [first, second] = [await books(c), await books(c, secondAttempt)];
    expect(first.balance).toBe(0);
    expect(first.recorded.cost_cents + second.recorded.cost_cents).toBe(50);
    expect(first.ledger.filter(([kind]) => kind === 'spend')).toHaveLength(5);
  });
});
