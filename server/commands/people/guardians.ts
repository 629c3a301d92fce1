import { Op, type WhereOptions } from 'sequelize';
import type { Database } from '../../db/index.js';
import { Tenant, type TenantTx } from '../../db/tenant.js';
import { type Page, type PageRequest } from '../../db/paging.js';
import { AppError, notFound } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { newId, randomToken } from '../../ids.js';
import { queueMail } from '../../mail/outbox.js';
import type { GuardianLinkRow, GuardianType } from '../../models/guardian.js';
import type { InstitutionRow } from '../../models/institution.js';
import type { PersonRow } from '../../models/person.js';
import { DAY_MS } from './licenses.js';
import { findPerson, personRefWhere } from './people.js';
import { hashToken } from '../../crypto/tokens.js';
import { normalizeEmail } from '../../validation/people.js';
import { givenName, readingName } from '../../mail/names.js';

/** Invitations are valid for 7 days, like developer invitations. */
export const INVITE_TTL_MS = 7 * DAY_MS;
const INVITE_TOKEN_LENGTH = 32;
const INVITE_TOKEN_PATTERN = /^[A-Za-z0-9]{32}$/;

export const guardianAcceptUrl = (portalUrl: string, token: string) => `${portalUrl}/guardian/accept?token=${token}`;

/** `student_id` filters take an id or a login email; an unknown student simply matches nothing. */
export async function studentFilter(tenant: Tenant, ref: string): Promise<WhereOptions> {
  if (!ref.includes('@')) return { student_id: ref };
  const student = await tenant.people.findOne({ attributes: ['id'], where: personRefWhere('student', ref) });
  return { student_id: student ? student.id : { [Op.in]: [] } };
}

async function findLink(tenant: Tenant, id: string): Promise<GuardianLinkRow> {
  const link = await tenant.guardianLinks.findById(id);
  if (!link) throw notFound('guardian link');
  return link;
}

// ---------------------------------------------------------------------------------------------
// Guardian links and invitations
// ---------------------------------------------------------------------------------------------

export interface GuardianLinkQuery extends PageRequest {
  student_id?: string;
  verified?: boolean;
}

export async function listGuardianLinks(tenant: Tenant, query: GuardianLinkQuery): Promise<Page<GuardianLinkRow>> {
  const where: WhereOptions[] = [];
  if (query.student_id) where.push(await studentFilter(tenant, query.student_id));
  if (query.verified !== undefined) where.push({ verified: query.verified });
  return tenant.guardianLinks.page(
    {
      where: where.length ? { [Op.and]: where } : undefined,
      order: [
        ['created_at', 'ASC'],
        ['id', 'ASC'],
      ],
    },
    query,
  );
}

/** GET /students/{id}/guardians: every link of one student, oldest first. */
export async function listStudentGuardians(tenant: Tenant, studentRef: string): Promise<GuardianLinkRow[]> {
  const student = await findPerson(tenant, 'student', studentRef);
  return tenant.guardianLinks.findAll({
    where: { student_id: student.id },
    order: [
      ['created_at', 'ASC'],
      ['id', 'ASC'],
    ],
  });
}

export interface NewGuardianLink {
  student_id: string;
  guardian_email: string;
  guardian_type: GuardianType;
  guardian_name?: string | null;
  guardian_phone?: string | null;
  is_primary?: boolean;
}

export interface InviteOptions {
  /** Base of the acceptance link (`ctx.portalUrl`). */
  portalUrl: string;
}

/** A fresh invitation: new token (any older link stops working), new expiry, mail queued to the guardian. */
async function sendInvitation(tx: TenantTx, link: GuardianLinkRow, student: PersonRow, options: InviteOptions): Promise<void> {
  const token = randomToken(INVITE_TOKEN_LENGTH);
  const now = new Date();
  const expiresAt = new Date(now.getTime() + INVITE_TTL_MS);
  await link.update({ invite_token_hash: hashToken(token), invite_expires_at: expiresAt, invited_at: now }, { transaction: tx.tx });
  const institution = await tx.institution();
  await queueMail(tx, {
    to: link.guardian_email,
    linkBase: options.portalUrl,
    subject: `${institution.name}: please confirm you are ${givenName(student.full_name)}'s guardian`,
    text: renderInvitationText({ institution, student, link, url: guardianAcceptUrl(options.portalUrl, token) }),
    kind: 'guardian_invite',
    expiresAt,
    about: { kind: 'guardian_invitation', id: link.id },
  });
}

function renderInvitationText(input: { institution: InstitutionRow; student: PersonRow; link: GuardianLinkRow; url: string }): string {
  const greeting = input.link.guardian_name ? `Hello ${givenName(input.link.guardian_name)},` : 'Hello,';
  const student = readingName(input.student.full_name);
  return [
    greeting,
    '',
    `${input.institution.name} has listed you as ${student}'s ${input.link.guardian_type}.`,
    'To confirm, open this link within 7 days and press Confirm:',
    '',
    input.url,
    '',
    `Once confirmed, you will receive a weekly report about ${givenName(input.student.full_name)}.`,
    'If you did not expect this message, you can ignore it; nothing happens unless you press Confirm.',
  ].join('\n');
}

/**
 * POST /guardians: links a guardian to a student of this institution and emails an invitation.
 * The same student and guardian email twice is `409 already_added`.
 */
export async function createGuardianLink(tenant: Tenant, input: NewGuardianLink, options: InviteOptions): Promise<GuardianLinkRow> {
  return tenant.inTransaction(async (tx) => {
    const student = await findPerson(tx, 'student', input.student_id);
    const email = normalizeEmail(input.guardian_email);
    const existing = await tx.guardianLinks.findOne({ attributes: ['id'], where: { student_id: student.id, guardian_email: email } });
    if (existing) throw new AppError('already_added', `This guardian email is already linked to the student (${existing.id}).`);
    const isPrimary = input.is_primary ?? false;
    if (isPrimary) await tx.guardianLinks.update({ is_primary: false }, { student_id: student.id, is_primary: true });
    const link = await tx.guardianLinks.create({
      id: newId('gdn'),
      student_id: student.id,
      guardian_email: email,
      guardian_type: input.guardian_type,
      guardian_name: input.guardian_name ?? null,
      guardian_phone: input.guardian_phone ?? null,
      is_primary: isPrimary,
      verified: false,
      invite_token_hash: null,
      invite_expires_at: null,
      invited_at: new Date(),
      verified_at: null,
    });
    await sendInvitation(tx, link, student, options);
    await emit(tx, 'guardian.invited', { guardian_id: link.id, student_id: student.id });
    return link;
  });
}

/** POST /guardians/{id}/resend: a new link (the old one is void) valid 7 days from now. */
export async function resendGuardianInvite(tenant: Tenant, id: string, options: InviteOptions): Promise<GuardianLinkRow> {
  return tenant.inTransaction(async (tx) => {
    const link = await findLink(tx, id);
    if (link.verified) throw new AppError('already_verified', 'The guardian has already accepted; there is nothing to resend.');
    const student = await findPerson(tx, 'student', link.student_id);
    await sendInvitation(tx, link, student, options);
    await emit(tx, 'guardian.invited', { guardian_id: link.id, student_id: student.id, resent: true });
    return link;
  });
}

export async function deleteGuardianLink(tenant: Tenant, id: string): Promise<{ id: string; deleted: true }> {
  return tenant.inTransaction(async (tx) => {
    const link = await findLink(tx, id);
    await tx.guardianLinks.destroy({ id: link.id });
    return { id: link.id, deleted: true as const };
  });
}

export interface AcceptedInvitation {
  guardian_id: string;
  student_id: string;
  student_first_name: string;
  institution_name: string;
}

/** What a guardian's link would confirm, without confirming it: null when it would not work. */
export async function previewGuardianInvite(
  db: Database,
  token: string,
  now = new Date(),
): Promise<{ student_first_name: string; institution_name: string } | null> {
  if (!INVITE_TOKEN_PATTERN.test(token)) return null;
  const link = await db.models.GuardianLink.findOne({ where: { invite_token_hash: hashToken(token) } });
  if (!link || link.verified || !link.invite_expires_at || link.invite_expires_at.getTime() <= now.getTime()) return null;
  const tenant = new Tenant(db, link.institution_id);
  const student = await tenant.people.findById(link.student_id);
  const institution = await db.models.Institution.findByPk(link.institution_id, { attributes: ['name'] });
  if (!student || !institution) return null;
  return { student_first_name: givenName(student.full_name), institution_name: institution.name };
}

/**
 * The acceptance page: a current, unexpired token verifies its link (once: the hash is cleared)
 * and emits `guardian.verified`. Anything else (unknown, used, replaced by a resend, expired) is null.
 * The token names its institution, so this is the one guardian operation that starts without a tenant.
 */
export async function acceptGuardianInvite(db: Database, token: string, now = new Date()): Promise<AcceptedInvitation | null> {
  if (!INVITE_TOKEN_PATTERN.test(token)) return null;
  const hash = hashToken(token);
  const found = await db.models.GuardianLink.findOne({ attributes: ['id', 'institution_id'], where: { invite_token_hash: hash } });
  if (!found) return null;
  return new Tenant(db, found.institution_id).inTransaction(async (tx) => {
    const transaction = tx.tx;
    // Read again in the institution's write transaction: another accept or a resend may have come first.
    const link = await findLink(tx, found.id);
    if (link.invite_token_hash !== hash || link.verified || !link.invite_expires_at || link.invite_expires_at.getTime() <= now.getTime()) return null;
    const student = await findPerson(tx, 'student', link.student_id);
    await link.update({ verified: true, verified_at: now, invite_token_hash: null, invite_expires_at: null }, { transaction });
    await emit(tx, 'guardian.verified', { guardian_id: link.id, student_id: student.id });
    const institution = await tx.institution();
    return { guardian_id: link.id, student_id: student.id, student_first_name: givenName(student.full_name), institution_name: institution.name };
  });
}
