import { effectiveStatus } from '../commands/people/licenses.js';
import type { DeviceSeatRow } from '../models/device-seat.js';
import type { LicenseRow } from '../models/license.js';

/** A license as the API shows one, with its effective status. The revoke reason is kept, not shown. */
export function presentLicense(row: LicenseRow, now = new Date()) {
  return {
    id: row.id,
    user_id: row.user_id,
    type: row.type,
    status: effectiveStatus(row, now),
    starts_at: row.starts_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
    revoked_at: row.revoked_at ? row.revoked_at.toISOString() : null,
  };
}

/** A device seat; the device's own identifier stays internal. */
export function presentSeat(row: DeviceSeatRow) {
  return {
    seat_id: row.id,
    app: row.app,
    device_name: row.device_name,
    activated_at: row.activated_at.toISOString(),
    last_seen_at: row.last_seen_at.toISOString(),
    status: row.status,
  };
}
