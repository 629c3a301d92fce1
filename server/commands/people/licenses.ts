import { sortedOrder } from '../../db/sort.js';
import type { ListSort } from '../../validation/sort.js';
import { Op, type WhereOptions } from 'sequelize';
import type { Database } from '../../db/index.js';
import { Tenant, type TenantTx } from '../../db/tenant.js';
import { type PageRequest } from '../../db/paging.js';
import { AppError, notFound, validationError } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { newId } from '../../ids.js';
import type { DeviceSeatRow } from '../../models/device-seat.js';
import type { LicenseRow, LicenseStatus, LicenseType } from '../../models/license.js';
import type { PersonRow } from '../../models/person.js';
import { normalizeEmail } from '../../validation/people.js';

export const DAY_MS = 24 * 60 * 60 * 1000;

/** Active device seats a license may hold at once, across apps (docs/api.md#licenses). */
export const MAX_ACTIVE_SEATS = 3;

const LICENSE_TYPES: readonly LicenseType[] = ['student', 'faculty'];

/**
 * The license every new person receives: `days[i]` from the person's creation, of the person's
 * type, created with the person (one INSERT for a batch).
 */
export function grantLicenses(tx: TenantTx, people: readonly PersonRow[], days: readonly number[]): Promise<LicenseRow[]> {
  return tx.licenses.bulkCreate(
    people.map((person, index) => {
      const start = person.created_at.getTime();
      return {
        id: newId('lic'),
        user_id: person.id,
        type: person.role,
        status: 'active' as const,
        starts_at: new Date(start),
        expires_at: new Date(start + days[index]! * DAY_MS),
        revoked_at: null,
        revoke_reason: null,
        created_at: person.created_at,
      };
    }),
  );
}

/**
 * The status a license has now. The expiry job stores `expired` up to a minute late; until then an
 * `active` row whose expiry has passed is already expired (docs/api.md#licenses), everywhere it is read.
 */
export function effectiveStatus(license: Pick<LicenseRow, 'status' | 'expires_at'>, now = new Date()): LicenseStatus {
  if (license.status === 'active' && license.expires_at.getTime() <= now.getTime()) return 'expired';
  return license.status;
}

/** WHERE clause selecting licenses by effective status, the same rule as `effectiveStatus`. */
export function effectiveStatusWhere(status: LicenseStatus, now: Date): WhereOptions<LicenseRow> {
  switch (status) {
    case 'active':
      return { status: 'active', expires_at: { [Op.gt]: now } };
    case 'expired':
      return { [Op.or]: [{ status: 'expired' }, { status: 'active', expires_at: { [Op.lte]: now } }] };
    case 'revoked':
      return { status: 'revoked' };
  }
}

/**
 * `effectiveStatusWhere` for a page in creation order: `active` tests the expiry as NOT(expires_at
 * <= now), the same rows (expires_at is never null), so the planner walks the list's index
 * `(institution_id, status, created_at, id, expires_at)` and stops at the page instead of sorting every active
 * license found on the appliance-wide `(status, expires_at)` range (docs/decisions/list-indexes.md).
 */
function listStatusWhere(status: LicenseStatus, now: Date): WhereOptions<LicenseRow> {
  if (status !== 'active') return effectiveStatusWhere(status, now);
  return { status: 'active', [Op.not]: { expires_at: { [Op.lte]: now } } };
}

export interface LicenseFilter {
  user_id?: string;
  status?: LicenseStatus;
  type?: LicenseType;
  expires_before?: Date;
  sort?: ListSort<'expires_at' | 'starts_at' | 'created_at'>;
}

/** GET /licenses. `user_id` takes a person id or login email, student or faculty; an unknown one matches nothing. */
export async function listLicenses(tenant: Tenant, filter: LicenseFilter, request: PageRequest) {
  const where: WhereOptions<LicenseRow>[] = [];
  if (filter.user_id !== undefined) {
    const ref = filter.user_id;
    const holder = await tenant.people.findOne({ attributes: ['id'], where: ref.includes('@') ? { login_email: normalizeEmail(ref) } : { id: ref } });
    if (!holder) return { items: [] as LicenseRow[], page: request.page, limit: request.limit, total: 0, totalPages: 0 };
    where.push({ user_id: holder.id });
  }
  if (filter.status) where.push(listStatusWhere(filter.status, new Date()));
  if (filter.type) where.push({ type: filter.type });
  if (filter.expires_before) where.push({ expires_at: { [Op.lt]: filter.expires_before } });
  return tenant.licenses.page(
    {
      where: { [Op.and]: where },
      order: sortedOrder(filter.sort, { expires_at: 'expires_at', starts_at: 'starts_at', created_at: 'created_at' }, [
        ['created_at', 'ASC'],
        ['id', 'ASC'],
      ]),
    },
    request,
  );
}

type StatusCounts = Record<LicenseStatus, number>;

/** GET /licenses/summary: counts by type and effective status, taken at one instant. */
export async function summarizeLicenses(tenant: Tenant) {
  const now = new Date();
  const statuses: LicenseStatus[] = ['active', 'expired', 'revoked'];
  const cells = LICENSE_TYPES.flatMap((type) => statuses.map((status) => ({ type, status })));
  const counts = await Promise.all(
    cells.map(({ type, status }) => tenant.licenses.count({ where: { [Op.and]: [{ type }, effectiveStatusWhere(status, now)] } })),
  );
  const byType: Record<LicenseType, StatusCounts> = {
    student: { active: 0, expired: 0, revoked: 0 },
    faculty: { active: 0, expired: 0, revoked: 0 },
  };
  cells.forEach(({ type, status }, i) => {
    byType[type][status] = counts[i] ?? 0;
  });
  return { by_type: byType, total: counts.reduce((sum, n) => sum + n, 0) };
}

export async function findLicense(tenant: Tenant, id: string): Promise<LicenseRow> {
  const license = await tenant.licenses.findById(id);
  if (!license) throw notFound('license');
  return license;
}

/**
 * Revokes a license and every active seat on it, with `license.revoked`. A revoked license is
 * final: revoking it again is `409 conflict`. An expired license can still be revoked.
 */
export function revokeLicense(tenant: Tenant, id: string, reason: string | undefined): Promise<LicenseRow> {
  return tenant.inTransaction(async (tx) => {
    const license = await findLicense(tx, id);
    if (license.status === 'revoked') throw new AppError('conflict', 'This license is already revoked.');
    const now = new Date();
    await license.update({ status: 'revoked', revoked_at: now, revoke_reason: reason ?? null }, { transaction: tx.tx });
    await tx.deviceSeats.update({ status: 'revoked', revoked_at: now }, { license_id: license.id, status: 'active' });
    await emit(tx, 'license.revoked', { license_id: license.id, user_id: license.user_id });
    return license;
  });
}

export interface Extension {
  expires_at?: Date;
  days?: number;
}

/**
 * The rule of docs/api.md#licenses: `expires_at` replaces the expiry; `days` are then added to it, or to the
 * current expiry, or to now when the license has already expired. The result must lie in the
 * future; an expired license extended so is active again. Revoked licenses are final (409).
 */
export function extendLicense(tenant: Tenant, id: string, extension: Extension): Promise<LicenseRow> {
  return tenant.inTransaction(async (tx) => {
    const license = await findLicense(tx, id);
    if (license.status === 'revoked') throw new AppError('conflict', 'A revoked license cannot be extended.');
    const now = new Date();
    let expiresAt: Date;
    if (extension.expires_at) expiresAt = extension.expires_at;
    else if (effectiveStatus(license, now) === 'expired') expiresAt = now;
    else expiresAt = license.expires_at;
    if (extension.days !== undefined) expiresAt = new Date(expiresAt.getTime() + extension.days * DAY_MS);
    if (expiresAt.getTime() <= now.getTime()) {
      throw validationError([
        { path: extension.expires_at ? 'expires_at' : 'days', message: `The resulting expiry ${expiresAt.toISOString()} is not in the future.` },
      ]);
    }
    await license.update({ status: 'active', expires_at: expiresAt }, { transaction: tx.tx });
    await emit(tx, 'license.extended', { license_id: license.id, user_id: license.user_id, expires_at: expiresAt.toISOString() });
    return license;
  });
}

/** GET /licenses/{id}/devices: every seat the license has had, newest first; revoked ones included. */
export async function listSeats(tenant: Tenant, licenseId: string): Promise<DeviceSeatRow[]> {
  const license = await findLicense(tenant, licenseId);
  return tenant.deviceSeats.findAll({
    where: { license_id: license.id },
    order: [
      ['activated_at', 'DESC'],
      ['id', 'DESC'],
    ],
  });
}

/** Frees a seat of this license; the seat stays listed as `revoked`. Revoking it again changes nothing. */
export function revokeSeat(tenant: Tenant, licenseId: string, seatId: string): Promise<DeviceSeatRow> {
  return tenant.inTransaction(async (tx) => {
    const license = await findLicense(tx, licenseId);
    const seat = await tx.deviceSeats.findOne({ where: { id: seatId, license_id: license.id } });
    if (!seat) throw notFound('device seat');
    if (seat.status === 'revoked') return seat;
    await seat.update({ status: 'revoked', revoked_at: new Date() }, { transaction: tx.tx });
    return seat;
  });
}

export interface DeviceActivation {
  app: 'learning' | 'code';
  device_id: string;
  device_name?: string | null;
}

/**
 * Takes (or refreshes) a device seat on a license, for the learner side's token exchange. The
 * same active device only updates `last_seen_at` (and its app and name); a new device beyond
 * three active seats is `409 conflict`; a revoked or expired license is `409 user_inactive`.
 * The license is read again inside the transaction, so one revoked meanwhile cannot gain a seat.
 */
export async function activateSeat(tx: TenantTx, license: LicenseRow, device: DeviceActivation): Promise<DeviceSeatRow> {
  const current = await findLicense(tx, license.id);
  const now = new Date();
  if (effectiveStatus(current, now) !== 'active') {
    throw new AppError('user_inactive', `The license of this user is ${effectiveStatus(current, now)}.`);
  }
  const existing = await tx.deviceSeats.findOne({ where: { license_id: current.id, device_id: device.device_id, status: 'active' } });
  if (existing) {
    await existing.update(
      { last_seen_at: now, app: device.app, ...(device.device_name !== undefined ? { device_name: device.device_name } : {}) },
      { transaction: tx.tx },
    );
    return existing;
  }
  const active = await tx.deviceSeats.count({ where: { license_id: current.id, status: 'active' } });
  if (active >= MAX_ACTIVE_SEATS) {
    throw new AppError('conflict', `This license already has ${MAX_ACTIVE_SEATS} active devices; revoke one in the portal or through the API first.`);
  }
  return tx.deviceSeats.create({
    id: newId('seat'),
    license_id: current.id,
    app: device.app,
    device_id: device.device_id,
    device_name: device.device_name ?? null,
    status: 'active',
    activated_at: now,
    last_seen_at: now,
    revoked_at: null,
  });
}

/**
 * The expiry job: every institution's licenses stored `active` whose expiry has passed become
 * `expired`, each with one `license.expired`. The UPDATE repeats its conditions, so a license
 * expired by a concurrent run, or extended since it was listed, is left alone and gets no event.
 */
export async function expireLicenses(db: Database, now = new Date()): Promise<number> {
  const institutions = await db.models.Institution.findAll({ attributes: ['id'], order: [['id', 'ASC']] });
  let expired = 0;
  for (const institution of institutions) {
    const tenant = new Tenant(db, institution.id);
    const due = await tenant.licenses.findAll({
      attributes: ['id', 'user_id'],
      where: { status: 'active', expires_at: { [Op.lte]: now } },
      order: [
        ['expires_at', 'ASC'],
        ['id', 'ASC'],
      ],
    });
    for (const license of due) {
      const changed = await tenant.inTransaction(async (tx) => {
        const affected = await tx.licenses.update({ status: 'expired' }, { id: license.id, status: 'active', expires_at: { [Op.lte]: now } });
        if (affected === 0) return false;
        await emit(tx, 'license.expired', { license_id: license.id, user_id: license.user_id });
        return true;
      });
      if (changed) expired += 1;
    }
  }
  return expired;
}
