import { Op } from 'sequelize';
import type { Database } from '../../db/index.js';
import { Tenant } from '../../db/tenant.js';
import { AppError, validationError } from '../../errors.js';
import { SESSION_PREFIX } from './auth.js';
import { newId, randomToken } from '../../ids.js';
import type { DeviceSeatRow } from '../../models/device-seat.js';
import type { LearnerApp, LearnerSessionRow } from '../../models/learner.js';
import type { LicenseRow } from '../../models/license.js';
import type { PersonRow } from '../../models/person.js';
import { activateSeat, effectiveStatus } from '../people/licenses.js';

import { hashToken } from '../../crypto/tokens.js';
import { normalizeEmail } from '../../validation/people.js';

/** Launch tokens: 40 characters of [A-Za-z0-9]; only their SHA-256 is stored. */
const LAUNCH_TOKEN_LENGTH = 40;
const LAUNCH_TOKEN_PATTERN = /^[A-Za-z0-9]{40}$/;
export const LAUNCH_TTL_DEFAULT_SECONDS = 60;
export const LAUNCH_TTL_MAX_SECONDS = 300;
/** Learner sessions last 8 hours (docs/api.md#learner-sessions). */
export const SESSION_TTL_MS = 8 * 60 * 60 * 1000;
const SESSION_TOKEN_LENGTH = 32;
const EXAM_REDIRECT = /^exam:(.*)$/s;

/** `<portal>/launch?token=…`: the portal's learner page exchanges the token and removes it from the address bar. */
export const launchUrl = (portalUrl: string, token: string) => `${portalUrl}/launch?token=${token}`;

const launchTokenInvalid = () =>
  new AppError('LAUNCH_TOKEN_INVALID', 'This launch link is not valid: it was already used, has expired, or never existed. Ask the school for a new link.');

/** The person's license: the newest one they hold (every person receives one at creation). */
function licenseOf(tenant: Tenant, person: PersonRow): Promise<LicenseRow | null> {
  return tenant.licenses.findOne({
    where: { user_id: person.id },
    order: [
      ['created_at', 'DESC'],
      ['id', 'DESC'],
    ],
  });
}

/** Sign-in is allowed for an active person whose license is effectively active; anything else is `409 user_inactive`. */
async function assertMaySignIn(tenant: Tenant, person: PersonRow, now: Date): Promise<LicenseRow> {
  if (person.status !== 'active') throw new AppError('user_inactive', 'This user is suspended.');
  const license = await licenseOf(tenant, person);
  if (!license) throw new AppError('user_inactive', 'This user has no license.');
  const status = effectiveStatus(license, now);
  if (status !== 'active') throw new AppError('user_inactive', `The license of this user is ${status}.`);
  return license;
}

export interface LaunchRequest {
  email: string;
  app: LearnerApp;
  redirect?: string | undefined;
  ttl_seconds: number;
  /** An LMS instructor's launch only (never `POST /sso/tokens`): the session may grade this exam's submissions and nothing else. */
  grading_exam_id?: string | undefined;
}

export interface MintedLaunch {
  token: string;
  expires_at: Date;
}

/**
 * POST /sso/tokens: a single-use launch token for a student or faculty member, valid `ttl_seconds`.
 * The token exists only in the returned link; the database keeps its SHA-256.
 */
export function mintLaunchToken(tenant: Tenant, request: LaunchRequest, now = new Date()): Promise<MintedLaunch> {
  return tenant.inTransaction(async (tx) => {
    const person = await tx.people.findOne({ where: { login_email: normalizeEmail(request.email) } });
    if (!person) throw new AppError('user_not_found', 'No student or faculty member of this institution has this login email.');
    await assertMaySignIn(tx, person, now);

    const redirect = request.redirect ?? null;
    const examRef = redirect ? EXAM_REDIRECT.exec(redirect) : null;
    if (examRef?.[1] !== undefined) {
      const exam = examRef[1] ? await tx.exams.findById(examRef[1], { attributes: ['id'] }) : null;
      if (!exam) throw validationError([{ path: 'redirect', message: `No exam "${examRef[1]}" in this institution.` }]);
    }

    const token = randomToken(LAUNCH_TOKEN_LENGTH);
    const expiresAt = new Date(now.getTime() + request.ttl_seconds * 1000);
    await tx.launchTokens.create({
      id: newId('lt'),
      token_hash: hashToken(token),
      user_id: person.id,
      app: request.app,
      redirect,
      grading_exam_id: request.grading_exam_id ?? null,
      expires_at: expiresAt,
      used_at: null,
      created_at: now,
    });
    return { token, expires_at: expiresAt };
  });
}

export interface ExchangeRequest {
  token: string;
  device?: { id: string; name?: string | null | undefined } | undefined;
}

export interface Exchanged {
  session: LearnerSessionRow;
  /** The session token itself: returned once, never stored. */
  session_token: string;
  person: PersonRow;
  seat: DeviceSeatRow | null;
  app: LearnerApp;
  redirect: string | null;
}

/**
 * POST /sso/exchange: spends a launch token and opens an 8-hour learner session.
 *
 * The claim is one conditional UPDATE (unused and unexpired) whose affected-row count decides,
 * so of many concurrent exchanges of one token exactly one wins. The token is spent by that
 * claim whatever follows: when the user turns out inactive or the device finds no free seat,
 * the claim still commits (no session, no seat) and the refusal is answered, so a launch link
 * can never be tried twice. A `device` takes or refreshes a seat on the user's license; without
 * one no seat is taken.
 */
export async function exchangeLaunchToken(db: Database, request: ExchangeRequest, now = new Date()): Promise<Exchanged> {
  if (!LAUNCH_TOKEN_PATTERN.test(request.token)) throw launchTokenInvalid();
  const hash = hashToken(request.token);
  // The token names its institution: this is where the learner side gets its tenant.
  const named = await db.models.LaunchToken.findOne({ attributes: ['institution_id'], where: { token_hash: hash } });
  if (!named) throw launchTokenInvalid();
  const outcome = await new Tenant(db, named.institution_id).inTransaction(async (tx): Promise<Exchanged | { refused: AppError }> => {
    const transaction = tx.tx;
    const [claimed] = await db.models.LaunchToken.update(
      { used_at: now },
      { where: { token_hash: hash, used_at: null, expires_at: { [Op.gt]: now } }, transaction },
    );
    if (claimed !== 1) return { refused: launchTokenInvalid() };
    const launch = await db.models.LaunchToken.findOne({ where: { token_hash: hash }, transaction });
    if (!launch) return { refused: launchTokenInvalid() };

    const institution = await db.models.Institution.findByPk(launch.institution_id, { transaction });
    if (!institution || institution.status !== 'approved') return { refused: launchTokenInvalid() };
    const person = await tx.people.findById(launch.user_id);
    if (!person) return { refused: launchTokenInvalid() };

    let seat: DeviceSeatRow | null = null;
    try {
      const license = await assertMaySignIn(tx, person, now);
      // A grading session (an LMS instructor's launch) takes no device seat: seats count where students take exams.
      if (request.device && !launch.grading_exam_id) {
        seat = await activateSeat(tx, license, { app: launch.app, device_id: request.device.id, device_name: request.device.name });
      }
    } catch (error) {
      // Refusals before any write: the claim above still commits.
      if (error instanceof AppError) return { refused: error };
      throw error;
    }

    const sessionToken = `${SESSION_PREFIX}${randomToken(SESSION_TOKEN_LENGTH)}`;
    const session = await tx.learnerSessions.create({
      id: newId('sess'),
      token_hash: hashToken(sessionToken),
      user_id: person.id,
      app: launch.app,
      seat_id: seat ? seat.id : null,
      grading_exam_id: launch.grading_exam_id,
      expires_at: new Date(now.getTime() + SESSION_TTL_MS),
      revoked_at: null,
      created_at: now,
    });
    return { session, session_token: sessionToken, person, seat, app: launch.app, redirect: launch.redirect };
  });
  if ('refused' in outcome) throw outcome.refused;
  return outcome;
}
