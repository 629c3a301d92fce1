import { AppError } from '../errors.js';

/** The 25 scopes (docs/api.md#scopes), with what each grants. */
export const SCOPES = {
  'students:read': 'Read students, their guardians and their exams.',
  'students:write': 'Provision, update, suspend and reactivate students.',
  'faculty:read': 'Read faculty members.',
  'faculty:write': 'Provision and update faculty members.',
  'groups:read': 'Read groups and their membership.',
  'groups:write': 'Create, update and delete groups and their membership.',
  'licenses:read': 'Read licenses, their summary and device seats.',
  'licenses:write': 'Extend and revoke licenses; revoke device seats.',
  'exams:read': 'Read exams, their assignments and coding-exam key status.',
  'exams:write': 'Create, update, publish, close and assign exams; upload exam files; hold hidden-test keys.',
  'submissions:read': 'Read submissions, attempts, proctoring feeds, analytics, scores and CSV exports.',
  'submissions:write': 'Grade and void submissions; unlocks proctoring recordings.',
  'coupons:read': 'Read coupon batches and redemptions.',
  'coupons:write': 'Request coupon batches.',
  'merits:read': 'Read the merit allowance, wallets and ledger.',
  'merits:write': 'Credit merits to students from the institution allowance.',
  'guardians:read': 'Read guardian links and weekly reports.',
  'guardians:write': 'Invite, re-invite and remove guardians.',
  'alpha:read': 'Read Alpha Learning curricula, enrollments, mastery, points and leaderboard.',
  'alpha:write': 'Enroll students in Alpha Learning and award points.',
  'institution:read': 'Read the institution profile and integration config.',
  'institution:write': 'Replace the integration config.',
  'webhooks:read': 'Read webhook endpoints, deliveries and the event stream.',
  'webhooks:write': 'Manage webhook endpoints; send test pings; replay deliveries.',
  'sso:write': 'Mint single-use launch tokens.',
} as const;

export type Scope = keyof typeof SCOPES;

/**
 * Scopes only an institution's admins may put on a key: what the portal keeps from developers
 * (licenses; the institution's own settings) and what spends the institution's money (merit
 * credits from its allowance, coupon batches). A developer making a key cannot reach through
 * `/v1` what their role cannot reach in the portal. See docs/decisions/keys-and-accounts.md.
 */
export const ADMIN_ONLY_SCOPES: readonly Scope[] = ['licenses:read', 'licenses:write', 'institution:write', 'merits:write', 'coupons:write'];

/** The portal roles that make keys. */
export type KeyGranterRole = 'admin' | 'developer';

export function canGrant(role: KeyGranterRole, scope: Scope): boolean {
  return role === 'admin' || !ADMIN_ONLY_SCOPES.includes(scope);
}

/** What a portal member may do with the institution's operations: the scopes their role may grant. */
export function roleScopes(role: KeyGranterRole): Scope[] {
  return ALL_SCOPES.filter((scope) => canGrant(role, scope));
}

/** `403 forbidden` naming the scopes the role may not put on a key. */
export function assertCanGrant(role: KeyGranterRole, scopes: readonly Scope[]): void {
  const refused = scopes.filter((scope) => !canGrant(role, scope));
  if (refused.length > 0) {
    throw new AppError('forbidden', `Only an admin can grant ${refused.join(', ')}.`, { refused });
  }
}

export const ALL_SCOPES = Object.keys(SCOPES) as Scope[];

export function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPES, value);
}

/** `x:write` implies `x:read`. */
export function grants(granted: readonly string[], required: Scope): boolean {
  if (granted.includes(required)) return true;
  const [area, level] = required.split(':');
  return level === 'read' && granted.includes(`${area}:write`);
}

export function missingScopes(granted: readonly string[], required: readonly Scope[]): Scope[] {
  return required.filter((scope) => !grants(granted, scope));
}

/** Validates a requested scope list (`all` expands to every scope); unknown names give `invalid_scopes`. */
export function parseScopes(requested: readonly string[]): Scope[] {
  const names = requested.map((name) => name.trim()).filter(Boolean);
  if (names.length === 1 && names[0] === 'all') return [...ALL_SCOPES];
  const unknown = names.filter((name) => !isScope(name));
  if (unknown.length > 0) {
    throw new AppError('invalid_scopes', `Unknown scope${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}.`, {
      invalid: unknown,
    });
  }
  if (names.length === 0) throw new AppError('invalid_scopes', 'At least one scope is required.', { invalid: [] });
  return ALL_SCOPES.filter((scope) => names.includes(scope));
}
