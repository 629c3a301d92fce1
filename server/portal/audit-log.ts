import type { AppContext } from '../context.js';
import { newId } from '../ids.js';
import type { PortalAuth } from './session.js';

export interface PortalAction {
  auth: PortalAuth;
  institutionId: string | null;
  method: string;
  path: string;
  summary: string;
  params: Record<string, unknown>;
  result: unknown;
  ip: string | null;
  requestId: string;
}

/** `Create an API key; the full key is in this answer only` → `Create an API key`. */
function describe(summary: string): string {
  return (summary.split(/;|: /)[0] ?? summary).trim().slice(0, 300);
}

const ID_FIELD = /^(id|[a-z]+(_id|Id))$/;

/**
 * The ids an action touched: its path parameters, and the top-level ids of what it answered (the
 * new key's `key_id`). Only strings named like ids, so no secret or personal field can slip in.
 */
function targetOf(params: Record<string, unknown>, result: unknown): Record<string, string> {
  const target: Record<string, string> = {};
  const take = (source: Record<string, unknown>) => {
    for (const [name, value] of Object.entries(source)) {
      if (ID_FIELD.test(name) && typeof value === 'string' && value.length <= 100 && !(name in target)) target[name] = value;
    }
  };
  take(params);
  if (result && typeof result === 'object' && !Array.isArray(result)) take(result as Record<string, unknown>);
  return target;
}

/**
 * Writes the entry after the change committed. It is a separate write, not part of the change's
 * transaction (commands own those): a crash between the two can lose an entry, never invent one.
 */
export async function recordPortalAction(ctx: AppContext, action: PortalAction): Promise<void> {
  try {
    await ctx.db.models.PortalAuditEntry.create({
      id: newId('aud'),
      institution_id: action.institutionId,
      account_id: action.auth.account.id,
      actor_email: action.auth.account.email,
      action: `${action.method.toUpperCase()} ${action.path}`,
      description: describe(action.summary),
      target: JSON.stringify(targetOf(action.params, action.result)),
      ip: action.ip?.slice(0, 64) ?? null,
      request_id: action.requestId.slice(0, 100),
    });
  } catch (error) {
    // The change itself succeeded; failing its answer now would invite a retry that repeats it.
    ctx.logger.error({ err: error, requestId: action.requestId }, 'portal audit entry could not be written');
  }
}
