import { Op } from 'sequelize';
import type { Config } from '../../config.js';
import type { Tenant, TenantTx } from '../../db/tenant.js';
import { AppError, notFound, validationError } from '../../errors.js';
import { newId } from '../../ids.js';
import type { OneRosterAuthMethod, OneRosterConnectionRow, OneRosterVersion } from '../../models/oneroster.js';
import { readApplianceSetting } from '../../settings/appliance-settings.js';
import type { Database } from '../../db/index.js';
import { DEFAULT_SCOPES, OneRosterClient, type SisSettings } from './client.js';
import { SisError } from './http.js';

/** Blind context of the sealed client secret: binds the ciphertext to its column. */
const CLIENT_SECRET = 'oneroster_connections.client_secret';

/** The guard's defaults (docs/lms.md#what-the-sync-does): 25% of a class and at least 4 people, 10% of the school. */
export const GUARD_DEFAULTS = { class_share: 0.25, class_minimum: 4, school_share: 0.1 } as const;

export interface ConnectionInput {
  url: string;
  version?: OneRosterVersion;
  /** Absent: `<url>/token`, where many SIS products answer (say so when yours differs). */
  token_url?: string | null;
  client_id: string;
  /** Required when connecting; absent on a change keeps the stored one (the secret is write-only). */
  client_secret?: string;
  auth_method?: OneRosterAuthMethod;
  /** Absent: the version's read-only roster scope. */
  scopes?: string | null;
  class_share?: number;
  class_minimum?: number;
  school_share?: number;
  schedule_hours?: number | null;
  /** Grades back to the SIS's gradebook (OneRoster 1.2 only); absent keeps the stored choice (off for a new connection). */
  gradebook_writeback?: boolean;
}

function checkUrl(raw: string, path: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw validationError([{ path, message: 'Not a valid absolute URL.' }]);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw validationError([{ path, message: 'Must be an https:// (or http:// on campus) URL.' }]);
  if (url.username || url.password) throw validationError([{ path, message: 'No user:password@ in the URL: the client id and secret are given apart.' }]);
  return url.toString().replace(/\/+$/, '');
}

export function findConnection(tenant: Tenant): Promise<OneRosterConnectionRow | null> {
  return tenant.onerosterConnections.findOne();
}

export async function requireConnection(tenant: Tenant): Promise<OneRosterConnectionRow> {
  const connection = await findConnection(tenant);
  if (!connection) throw notFound('OneRoster connection (connect one first)');
  return connection;
}

/**
 * Connects the institution to its SIS, or changes the connection (one per institution). The
 * secret is sealed with the master key before it is stored. Changing the URL or the version
 * forgets the delta watermark: the next sync is a full one.
 */
export function saveConnection(tenant: Tenant, input: ConnectionInput): Promise<OneRosterConnectionRow> {
  return tenant.inTransaction(async (tx) => {
    const existing = await tx.onerosterConnections.findOne();
    const url = checkUrl(input.url, 'url');
    const version = input.version ?? existing?.version ?? '1.2';
    const tokenUrl = input.token_url ? checkUrl(input.token_url, 'token_url') : `${url}/token`;
    // A connection made by CSV imports has no secret yet: connecting its REST API needs one.
    if ((!existing || existing.source === 'csv') && !input.client_secret)
      throw validationError([{ path: 'client_secret', message: 'Required when connecting.' }]);
    if (input.gradebook_writeback) refuseGradebookWriteback({ source: 'rest', version });
    const values = {
      source: 'rest' as const,
      url,
      version,
      token_url: tokenUrl,
      client_id: input.client_id,
      auth_method: input.auth_method ?? existing?.auth_method ?? 'basic',
      scopes: input.scopes?.trim() || DEFAULT_SCOPES[version],
      class_share: input.class_share ?? existing?.class_share ?? GUARD_DEFAULTS.class_share,
      class_minimum: input.class_minimum ?? existing?.class_minimum ?? GUARD_DEFAULTS.class_minimum,
      school_share: input.school_share ?? existing?.school_share ?? GUARD_DEFAULTS.school_share,
      schedule_hours: input.schedule_hours === undefined ? (existing?.schedule_hours ?? null) : input.schedule_hours,
      // A move to 1.1 turns write-back off: 1.1's gradebook is not what the sender speaks.
      gradebook_writeback: version === '1.2' && (input.gradebook_writeback ?? existing?.gradebook_writeback ?? false),
      ...(input.client_secret ? { client_secret_sealed: tx.fieldCrypto.encrypt(input.client_secret, CLIENT_SECRET) } : {}),
    };
    if (!existing) {
      return tx.onerosterConnections.create({
        id: newId('orc'),
        ...values,
        client_secret_sealed: values.client_secret_sealed!,
        delta_watermark: null,
        last_full_sync_at: null,
      });
    }
    const moved = existing.url !== url || existing.version !== version;
    await existing.update({ ...values, ...(moved ? { delta_watermark: null } : {}) }, { transaction: tx.tx });
    return existing;
  });
}

/**
 * The connection the first CSV import of an institution makes: no URL or credentials (empty
 * strings), the guard's defaults, no schedule. Its links and runs are those of any connection, so
 * connecting the SIS's REST API later (saveConnection) carries on from them.
 */
export function createCsvConnection(tx: TenantTx, version: OneRosterVersion): Promise<OneRosterConnectionRow> {
  return tx.onerosterConnections.create({
    id: newId('orc'),
    source: 'csv',
    url: '',
    version,
    token_url: '',
    client_id: '',
    client_secret_sealed: '',
    auth_method: 'basic',
    scopes: '',
    ...GUARD_DEFAULTS,
    schedule_hours: null,
    delta_watermark: null,
    last_full_sync_at: null,
  });
}

/**
 * Gradebook write-back needs somewhere to `PUT`: a REST connection of OneRoster 1.2 (the version
 * whose Gradebook service the sender speaks). Anything else is refused in words.
 */
function refuseGradebookWriteback(connection: Pick<OneRosterConnectionRow, 'source' | 'version'>): void {
  if (connection.source === 'csv') {
    throw validationError([
      {
        path: 'gradebook_writeback',
        message: "This connection takes CSV imports: there is no SIS API to send grades to. Connect the SIS's REST API (URL and credentials) first.",
      },
    ]);
  }
  if (connection.version !== '1.2') {
    throw validationError([
      { path: 'gradebook_writeback', message: 'Gradebook write-back needs OneRoster 1.2 (its Gradebook service); this connection is 1.1.' },
    ]);
  }
}

/** Turns gradebook write-back on or off, leaving the rest of the connection as it is (docs/lms.md). */
export function setGradebookWriteback(tenant: Tenant, enabled: boolean): Promise<OneRosterConnectionRow> {
  return tenant.inTransaction(async (tx) => {
    const connection = await tx.onerosterConnections.findOne();
    if (!connection) throw notFound('OneRoster connection (connect one first)');
    if (enabled) refuseGradebookWriteback(connection);
    await connection.update({ gradebook_writeback: enabled }, { transaction: tx.tx });
    return connection;
  });
}

/** Removes the connection, its links, its runs and its gradebook posts; the people and groups it made stay. */
export function removeConnection(tenant: Tenant): Promise<{ deleted: true }> {
  return tenant.inTransaction(async (tx) => {
    const connection = await tx.onerosterConnections.findOne();
    if (!connection) throw notFound('OneRoster connection');
    const posts = await tx.onerosterGradebookPosts.findAll({ attributes: ['id'], where: { connection_id: connection.id } });
    if (posts.length > 0) await tx.onerosterGradebookAttempts.destroy({ post_id: { [Op.in]: posts.map((post) => post.id) } });
    await tx.onerosterGradebookPosts.destroy({ connection_id: connection.id });
    await tx.onerosterLineItems.destroy({ connection_id: connection.id });
    await tx.onerosterRuns.destroy({ connection_id: connection.id });
    await tx.onerosterLinks.destroy({ connection_id: connection.id });
    await tx.onerosterConnections.destroy({ id: connection.id });
    return { deleted: true as const };
  });
}

/** What the client needs, the secret opened; requests obey the `outbound_private_hosts` setting. */
export async function sisSettings(db: Database, config: Config, tenant: Tenant, connection: OneRosterConnectionRow): Promise<SisSettings> {
  return {
    url: connection.url,
    version: connection.version,
    tokenUrl: connection.token_url,
    clientId: connection.client_id,
    clientSecret: tenant.fieldCrypto.decrypt(connection.client_secret_sealed, CLIENT_SECRET),
    authMethod: connection.auth_method,
    scopes: connection.scopes,
    privateHosts: await readApplianceSetting(db, config, 'outbound_private_hosts'),
  };
}

export interface ConnectionTest {
  ok: boolean;
  /** What was checked and what it found: the token, then one page of users. */
  message: string;
}

/**
 * The settings a test uses: the stored connection's, or (`draft`, the form as typed, before it is
 * saved) the draft's, with the stored secret when the draft leaves it out.
 */
async function settingsToTest(
  db: Database,
  config: Config,
  tenant: Tenant,
  draft: Partial<ConnectionInput> | undefined,
): Promise<SisSettings | ConnectionTest> {
  const stored = await findConnection(tenant);
  if (!draft?.url) {
    if (!stored) throw notFound('OneRoster connection (connect one first, or send the values to test)');
    if (stored.source === 'csv')
      return { ok: false, message: 'This connection takes CSV imports: it has no REST API to test. Connect the SIS (URL and credentials) to sync through it.' };
    return sisSettings(db, config, tenant, stored);
  }
  const url = checkUrl(draft.url, 'url');
  if (!draft.client_id) throw validationError([{ path: 'client_id', message: 'Required to test the connection.' }]);
  const storedSecret = stored && stored.source === 'rest' ? tenant.fieldCrypto.decrypt(stored.client_secret_sealed, CLIENT_SECRET) : null;
  const clientSecret = draft.client_secret ?? storedSecret;
  if (!clientSecret) throw validationError([{ path: 'client_secret', message: 'Required to test the connection.' }]);
  const version = draft.version ?? stored?.version ?? '1.2';
  return {
    url,
    version,
    tokenUrl: draft.token_url ? checkUrl(draft.token_url, 'token_url') : `${url}/token`,
    clientId: draft.client_id,
    clientSecret,
    authMethod: draft.auth_method ?? 'basic',
    scopes: draft.scopes?.trim() || DEFAULT_SCOPES[version],
    privateHosts: await readApplianceSetting(db, config, 'outbound_private_hosts'),
  };
}

/**
 * Asks for a token and for one page of users, without writing anything: of the stored connection,
 * or of the values in `draft` before they are saved ("Test connection" before "Connect").
 */
export async function testConnection(db: Database, config: Config, tenant: Tenant, draft?: Partial<ConnectionInput>): Promise<ConnectionTest> {
  const settings = await settingsToTest(db, config, tenant, draft);
  if ('ok' in settings) return settings;
  const client = new OneRosterClient(settings);
  try {
    await client.accessToken();
    const count = await client.countUsers();
    return { ok: true, message: `Signed in to the SIS and read its users: ${count} in all.` };
  } catch (error) {
    if (error instanceof SisError) return { ok: false, message: error.message };
    if (error instanceof AppError) return { ok: false, message: error.message };
    throw error;
  }
}
