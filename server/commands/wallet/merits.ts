import { Op, type WhereOptions } from 'sequelize';
import type { Database } from '../../db/index.js';
import { Tenant, type TenantTx } from '../../db/tenant.js';
import { type Page, type PageRequest } from '../../db/paging.js';
import { AppError, validationError } from '../../errors.js';
import { emit } from '../../events/emit.js';
import type { LearnerAuth } from '../learner/auth.js';
import { newId } from '../../ids.js';
import type { LedgerKind, MeritLedgerRow } from '../../models/merit.js';
import type { PersonRow } from '../../models/person.js';
import { findInstitution } from '../institutions/institutions.js';
import { personRefWhere } from '../people/people.js';
import { normalizeEmail } from '../../validation/people.js';

/** One operator credit: 1 cent to $10,000. */
export const MAX_CREDIT_CENTS = 1_000_000;
/** What the operator may grant one institution: $10 billion, far inside exact integer arithmetic. */
export const MAX_ALLOWANCE_CENTS = 1_000_000_000_000;
/** Rows shown with a wallet, newest first. */
export const WALLET_LEDGER_ROWS = 50;

// BIGINT columns may come back as strings from some drivers; money is always a JS integer here.
const cents = (value: number | string | bigint) => Number(value);

export interface Allowance {
  total_cents: number;
  used_cents: number;
  remaining_cents: number;
}

/** A ledger row with the login email of its student. */
export interface LedgerEntry {
  entry: MeritLedgerRow;
  email: string;
}

const noStudent = (ref: string) => new AppError('user_not_found', `No student of this institution has the login email "${ref}".`);

/** The institution's allowance; none granted yet reads as zeros. */
export async function readAllowance(tenant: Tenant): Promise<Allowance> {
  const row = await tenant.meritAllowances.findOne();
  const total = row ? cents(row.total_cents) : 0;
  const used = row ? cents(row.used_cents) : 0;
  return { total_cents: total, used_cents: used, remaining_cents: total - used };
}

/**
 * Operator (CLI): sets what the institution may credit in total. Credits already made stay made,
 * so a total below `used_cents` is `409 conflict`; the check and the write share one transaction.
 */
export async function setAllowance(db: Database, institutionId: string, totalCents: number): Promise<Allowance> {
  if (!Number.isSafeInteger(totalCents) || totalCents < 0 || totalCents > MAX_ALLOWANCE_CENTS) {
    throw validationError([{ path: 'cents', message: `A whole number of cents from 0 to ${MAX_ALLOWANCE_CENTS}.` }]);
  }
  await findInstitution(db, institutionId);
  return new Tenant(db, institutionId).inTransaction(async (tx) => {
    const row = await tx.meritAllowances.findOne();
    const used = row ? cents(row.used_cents) : 0;
    if (totalCents < used) {
      throw new AppError('conflict', `The institution has already credited ${used} cents; the allowance cannot be set below that.`, { used_cents: used });
    }
    if (row) await tx.meritAllowances.update({ total_cents: totalCents }, {});
    else await tx.meritAllowances.create({ total_cents: totalCents, used_cents: 0 });
    return readAllowance(tx);
  });
}

/**
 * Ledger timestamps are strictly increasing per institution (the write transaction holds the lock,
 * so reading the newest and writing the next is atomic): the ledger has one unambiguous order.
 */
async function nextLedgerTime(tx: TenantTx): Promise<Date> {
  const newest = await tx.meritLedger.findOne({ attributes: ['created_at'], order: [['created_at', 'DESC']] });
  const floor = newest ? newest.created_at.getTime() + 1 : 0;
  return new Date(Math.max(Date.now(), floor));
}

export interface Posting {
  kind: LedgerKind;
  /** Negative for a spend. */
  amount_cents: number;
  reason: string;
  ref: string | null;
}

/**
 * Moves a student's wallet and writes the ledger row that explains it, in the caller's transaction:
 * a balance never changes without its row, and never goes below zero (`409 insufficient_allowance`).
 * The update is a compare-and-set on the balance read, so even a database without this appliance's
 * serialised writers could not lose or double an update: it would fail instead.
 */
export async function postToWallet(tx: TenantTx, student: PersonRow, posting: Posting): Promise<MeritLedgerRow> {
  const wallet = await tx.meritWallets.findOne({ where: { student_id: student.id } });
  const before = wallet ? cents(wallet.balance_cents) : 0;
  const after = before + posting.amount_cents;
  if (after < 0) {
    throw new AppError('insufficient_allowance', `The wallet holds ${before} cents; ${-posting.amount_cents} cents were asked for.`, {
      balance_cents: before,
    });
  }
  if (wallet) {
    const moved = await tx.meritWallets.update({ balance_cents: after }, { student_id: student.id, balance_cents: before });
    if (moved !== 1) throw new Error(`wallet of ${student.id} changed inside its own transaction`);
  } else {
    await tx.meritWallets.create({ student_id: student.id, balance_cents: after });
  }
  return tx.meritLedger.create({
    id: newId('mle'),
    student_id: student.id,
    kind: posting.kind,
    amount_cents: posting.amount_cents,
    balance_after_cents: after,
    reason: posting.reason,
    ref: posting.ref,
    created_at: await nextLedgerTime(tx),
  });
}

export interface CreditInput {
  /** The student's login email. */
  email: string;
  amount_cents: number;
  reason: string;
  /** The institution's idempotency key, unique per institution. */
  ref: string;
}

export interface CreditResult {
  /** The credit's ledger row: its id is the `credit_id`, its balance the one right after it. */
  entry: MeritLedgerRow;
  email: string;
  replayed: boolean;
}

/**
 * POST /merits/credits, idempotent on `ref`. In one transaction: a `ref` already used answers the
 * first credit again (`replayed`) when the body is the same, `409 conflict` when it differs, and
 * changes nothing either way. A new credit needs a student (`404 user_not_found`) and room in the
 * allowance (`409 insufficient_allowance`); it raises `used_cents`, credits the wallet, writes the
 * ledger row and emits `merit.credited`, all or nothing. A refused credit leaves the ref unused.
 */
export function creditMerits(tenant: Tenant, input: CreditInput): Promise<CreditResult> {
  return tenant.inTransaction(async (tx) => {
    const email = normalizeEmail(input.email);
    const first = await tx.meritLedger.findOne({ where: { kind: 'credit', ref: input.ref } });
    if (first) {
      const student = await tx.people.findById(first.student_id, { attributes: ['id', 'login_email'] });
      const same = student?.login_email === email && cents(first.amount_cents) === input.amount_cents && first.reason === input.reason;
      if (!same || !student) {
        throw new AppError('conflict', `ref "${input.ref}" was already used for a different credit; use a new ref for a new credit.`, {
          credit_id: first.id,
        });
      }
      return { entry: first, email: student.login_email, replayed: true };
    }

    const student = await tx.people.findOne({ where: { role: 'student', login_email: email } });
    if (!student) throw noStudent(email);

    const allowance = await tx.meritAllowances.findOne();
    const total = allowance ? cents(allowance.total_cents) : 0;
    const used = allowance ? cents(allowance.used_cents) : 0;
    if (!allowance || input.amount_cents > total - used) {
      throw new AppError('insufficient_allowance', `The institution's remaining merit allowance is ${total - used} cents.`, {
        remaining_cents: total - used,
      });
    }
    const drawn = await tx.meritAllowances.update({ used_cents: used + input.amount_cents }, { used_cents: used });
    if (drawn !== 1) throw new Error('merit allowance changed inside its own transaction');

    const entry = await postToWallet(tx, student, { kind: 'credit', amount_cents: input.amount_cents, reason: input.reason, ref: input.ref });
    await emit(tx, 'merit.credited', { credit_id: entry.id, student_id: student.id, amount_cents: input.amount_cents });
    return { entry, email: student.login_email, replayed: false };
  });
}

export interface Wallet {
  email: string;
  balance_cents: number;
  /** The newest rows, newest first. */
  ledger: LedgerEntry[];
}

/** GET /merits/wallets/{email}: the student's balance and newest ledger rows (a student never credited: 0 and none). */
export async function getWallet(tenant: Tenant, studentRef: string): Promise<Wallet> {
  const student = await tenant.people.findOne({ where: personRefWhere('student', studentRef) });
  if (!student) throw noStudent(studentRef);
  const rows = await tenant.meritLedger.findAll({
    where: { student_id: student.id },
    order: [
      ['created_at', 'DESC'],
      ['id', 'DESC'],
    ],
    limit: WALLET_LEDGER_ROWS,
  });
  // The balance comes from the newest row, not a second query, so it always matches the rows shown
  // (the wallet row and the newest ledger row are written together and always agree).
  return {
    email: student.login_email,
    balance_cents: rows[0] ? cents(rows[0].balance_after_cents) : 0,
    ledger: rows.map((entry) => ({ entry, email: student.login_email })),
  };
}

export interface LedgerFilter extends PageRequest {
  /** Login email (or id) of the student. */
  email?: string;
  /** Inclusive: `created_at >= since`. */
  since?: Date;
}

/** Login emails of the given people, in one query. */
export async function loginEmails(tenant: Tenant, ids: readonly string[]): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const people = await tenant.people.findAll({ attributes: ['id', 'login_email'], where: { id: { [Op.in]: unique } } });
  return new Map(people.map((person) => [person.id, person.login_email]));
}

/** GET /merits/ledger: every wallet movement of the institution, oldest first (the order is strict, so paging is stable). */
export async function listLedger(tenant: Tenant, filter: LedgerFilter): Promise<Page<LedgerEntry>> {
  const where: WhereOptions<MeritLedgerRow>[] = [];
  if (filter.email !== undefined) {
    const student = await tenant.people.findOne({ attributes: ['id'], where: personRefWhere('student', filter.email) });
    // An unknown student has no rows: an empty page, as for any filter.
    if (!student) return { items: [], page: filter.page, limit: filter.limit, total: 0, totalPages: 0 };
    where.push({ student_id: student.id });
  }
  if (filter.since !== undefined) where.push({ created_at: { [Op.gte]: filter.since } });
  const page = await tenant.meritLedger.page(
    {
      where: where.length > 0 ? { [Op.and]: where } : undefined,
      order: [
        ['created_at', 'ASC'],
        ['id', 'ASC'],
      ],
    },
    filter,
  );
  const emails = await loginEmails(
    tenant,
    page.items.map((entry) => entry.student_id),
  );
  return { ...page, items: page.items.map((entry) => ({ entry, email: emails.get(entry.student_id) ?? '' })) };
}

/** Wallets belong to students; a faculty member's learner session is `403 forbidden` here. */
export function walletOwner(learner: LearnerAuth): PersonRow {
  if (learner.person.role !== 'student') throw new AppError('forbidden', 'Only students have a merit wallet; this session belongs to a faculty member.');
  return learner.person;
}
