import type { TenantTx } from '../db/tenant.js';
import { newId } from '../ids.js';
import type { LicenseRow } from '../models/license.js';
import type { PersonRow } from '../models/person.js';

export const DAY_MS = 24 * 60 * 60 * 1000;

/** The license every new person receives: `license_days` from now, of the person's type. */
export function grantLicense(tx: TenantTx, person: PersonRow, days: number): Promise<LicenseRow> {
  const now = Date.now();
  return tx.licenses.create({
    id: newId('lic'),
    user_id: person.id,
    type: person.role,
    status: 'active',
    starts_at: new Date(now),
    expires_at: new Date(now + days * DAY_MS),
    revoked_at: null,
    revoke_reason: null,
  });
}
