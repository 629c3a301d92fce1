import type { Database } from '../db/index.js';
import { dataVersion } from '../db/data-version.js';
import { isPostgres } from '../db/postgres.js';
import type { ApiKeyRow } from '../models/api-key.js';
import type { InstitutionRow } from '../models/institution.js';
import { ensureSandbox } from '../commands/institutions/sandbox.js';

export interface KeyWithInstitution {
  key: ApiKeyRow;
  /** The key's own institution: the live one, for sandbox keys too (its status is theirs). */
  institution: InstitutionRow | undefined;
  /** For a sandbox key, the sandbox it acts on (docs/decisions/sandbox.md); otherwise undefined. */
  sandbox?: InstitutionRow;
}

interface Entry extends KeyWithInstitution {
  /** The data version read before the rows were fetched. */
  version: number;
}

/** Enough for every key of a district; past it the cache starts over rather than grow. */
const MAX_ENTRIES = 10_000;

/**
 * The key (with its institution) for a key hash, fetched once and reused while the database is
 * unchanged: an entry counts only if `PRAGMA data_version`, read after the request arrived,
 * equals the value read before the entry was fetched. Any commit by another connection (a
 * revocation or suspension by the CLI, a rate limit changed in the portal, any write of this
 * process) changes it, so the next request reads the rows again: exact, not eventually right.
 * Unknown hashes are never remembered. See docs/decisions/authenticated-hot-path.md.
 */
export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly fetching = new Map<string, Promise<Entry | null>>();
  private version: number | undefined;

  constructor(private readonly db: Database) {}

  async find(keyHash: string): Promise<KeyWithInstitution | null> {
    // PostgreSQL has no data version that other processes' commits move: every lookup reads the
    // rows (one indexed query), which is exact across processes (docs/scale-out.md).
    if (isPostgres(this.db.sequelize)) return this.fetch(keyHash, Number.NaN);
    // Unreadable (never expected): NaN matches nothing, so every lookup reads the rows.
    const version = await dataVersion(this.db.sequelize).catch(() => Number.NaN);
    if (version !== this.version) {
      this.entries.clear();
      this.version = version;
    }
    const hit = this.entries.get(keyHash);
    if (hit && hit.version === version) return hit;

    if (Number.isNaN(version)) return this.fetch(keyHash, version);
    // Requests that read the same version share one fetch: no commit came between its start and their arrival.
    const pendingKey = `${version}:${keyHash}`;
    let fetching = this.fetching.get(pendingKey);
    if (!fetching) {
      fetching = this.fetch(keyHash, version).finally(() => this.fetching.delete(pendingKey));
      this.fetching.set(pendingKey, fetching);
    }
    return fetching;
  }

  private async fetch(keyHash: string, version: number): Promise<Entry | null> {
    const key = (await this.db.models.ApiKey.findOne({ where: { key_hash: keyHash }, include: [{ association: 'institution' }] })) as
      (ApiKeyRow & { institution?: InstitutionRow }) | null;
    if (!key) return null;
    // A sandbox key's sandbox, made on its first use if the key's creator did not make it (one write, once).
    const sandbox = key.environment === 'sandbox' && key.institution ? await ensureSandbox(this.db, key.institution.id) : undefined;
    const entry: Entry = { version, key, institution: key.institution, sandbox };
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    // Stored under the version read before the fetch: a commit during it makes the entry stale at once.
    if (version === this.version) this.entries.set(keyHash, entry);
    return entry;
  }
}

const caches = new WeakMap<Database, KeyCache>();

/** One cache per database, shared by every route that authenticates a key. */
export function keyCacheFor(db: Database): KeyCache {
  let cache = caches.get(db);
  if (!cache) {
    cache = new KeyCache(db);
    caches.set(db, cache);
  }
  return cache;
}
