import { Op } from 'sequelize';
import type { Database } from '../../db/index.js';

/** What the operator's pages can show by name: the appliance-wide records the operator manages. */
export const OPERATOR_KIND_OF_PREFIX = {
  inst: 'institution',
  acc: 'account',
  inv: 'invitation',
  cpb: 'coupon_batch',
  cur: 'curriculum',
} as const;

export type OperatorNamedKind = (typeof OPERATOR_KIND_OF_PREFIX)[keyof typeof OPERATOR_KIND_OF_PREFIX];
export const OPERATOR_NAMED_KINDS = Object.values(OPERATOR_KIND_OF_PREFIX) as OperatorNamedKind[];

export interface OperatorNamedRef {
  id: string;
  kind: OperatorNamedKind;
  name: string;
  /** The institution's name for a coupon batch or an invitation; else null. */
  detail: string | null;
}

const among = (ids: readonly string[]) => ({ [Op.in]: ids });
const whenAny = async <T>(ids: readonly string[], read: () => Promise<T[]>): Promise<T[]> => (ids.length > 0 ? read() : []);

/**
 * Names for the operator's audit log and lists: institutions, accounts, admin invitations, coupon
 * batches and curricula, the records the operator's own pages list. Institution data (students,
 * keys, endpoints…) is not named here: the operator is not a member of every institution, so it
 * stays an id (docs/decisions/names-not-ids.md).
 */
export async function operatorNamesOf(db: Database, ids: readonly string[]): Promise<OperatorNamedRef[]> {
  const wanted = new Map<OperatorNamedKind, string[]>();
  for (const id of new Set(ids)) {
    const prefix = id.slice(0, id.indexOf('_'));
    if (!Object.hasOwn(OPERATOR_KIND_OF_PREFIX, prefix)) continue;
    const kind = OPERATOR_KIND_OF_PREFIX[prefix as keyof typeof OPERATOR_KIND_OF_PREFIX];
    wanted.set(kind, [...(wanted.get(kind) ?? []), id]);
  }
  const of = (kind: OperatorNamedKind) => wanted.get(kind) ?? [];
  const { Institution, PortalAccount, Invitation, CouponBatch, AlphaCurriculum } = db.models;
  const [accounts, invitations, batches, curricula] = await Promise.all([
    whenAny(of('account'), () => PortalAccount.findAll({ attributes: ['id', 'email'], where: { id: among(of('account')) }, raw: true })),
    whenAny(of('invitation'), () => Invitation.findAll({ attributes: ['id', 'email', 'institution_id'], where: { id: among(of('invitation')) }, raw: true })),
    whenAny(of('coupon_batch'), () =>
      CouponBatch.findAll({ attributes: ['id', 'name', 'institution_id'], where: { id: among(of('coupon_batch')) }, raw: true }),
    ),
    whenAny(of('curriculum'), () => AlphaCurriculum.findAll({ attributes: ['id', 'name'], where: { id: among(of('curriculum')) }, raw: true })),
  ]);
  // Institutions asked for, and those the invitations and batches belong to, in one query.
  const institutionIds = [...new Set([...of('institution'), ...invitations.map((row) => row.institution_id), ...batches.map((row) => row.institution_id)])];
  const institutions = await whenAny(institutionIds, () =>
    Institution.findAll({ attributes: ['id', 'name'], where: { id: among(institutionIds) }, raw: true }),
  );
  const institutionName = new Map(institutions.map((row) => [row.id, row.name]));
  const named = (kind: OperatorNamedKind, id: string, name: string, detail: string | null = null): OperatorNamedRef => ({ id, kind, name, detail });
  return [
    ...of('institution').flatMap((id) => (institutionName.has(id) ? [named('institution', id, institutionName.get(id)!)] : [])),
    ...accounts.map((row) => named('account', row.id, row.email)),
    ...invitations.map((row) => named('invitation', row.id, row.email, institutionName.get(row.institution_id) ?? null)),
    ...batches.map((row) => named('coupon_batch', row.id, row.name, institutionName.get(row.institution_id) ?? null)),
    ...curricula.map((row) => named('curriculum', row.id, row.name)),
  ];
}
