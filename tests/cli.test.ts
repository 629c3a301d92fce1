// @tier integration
// @databases sqlite, postgres
// The command line of docs/api.md#command-line: one JSON value on stdout and exit 0; a one-line error with the
// API's error code on stderr and exit 1; bad usage exit 2. Most runs are in-process through
// runCli; a few spawn the real bundle to prove the real exit statuses.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { QueryTypes } from 'sequelize';
import { beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../server/db/index.js';
import { ALL_SCOPES } from '../server/policies/scopes.js';
import { dataDirDatabase, tempDataDirs } from './helpers/appliance.js';
import { cliFails as fails, cliOk as ok, runCliCaptured, type CliResult } from './helpers/cli.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI_BUNDLE = path.join(root, 'dist', 'server', 'cli.js');
const KEY_PATTERN = /^cb_live_[A-Za-z0-9]{32}$/;
const PASSWORD = 'correct horse battery';

const makeDataDir = tempDataDirs('campusbridge-cli-');

/** runCli in this process, against DATA_DIR only. */
const cli = (dataDir: string, ...argv: string[]): Promise<CliResult> => runCliCaptured(dataDir, ...argv);

/** The environment of a spawned run: this process's, without appliance settings that could leak in. */
function childEnv(dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
  for (const name of ['DATABASE_URL', 'RATE_LIMIT_STORE', 'HOST', 'PORT', 'LOG_LEVEL']) delete env[name];
  return env;
}

/** The real bundle, `node dist/server/cli.js …`. */
function spawnCli(dataDir: string, ...argv: string[]): CliResult {
  const result = spawnSync(process.execPath, [CLI_BUNDLE, ...argv], {
    cwd: root,
    env: childEnv(dataDir),
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (result.error) throw result.error;
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

function usage(result: CliResult): void {
  expect(result.code, `stdout: ${result.stdout} stderr: ${result.stderr}`).toBe(2);
  expect(result.stderr.trim()).not.toBe('');
}

interface InstitutionOut {
  id: string;
  name: string;
  status: string;
}

interface CreatedKeyOut {
  key_id: string;
  key: string;
  name: string;
  scopes: string[];
  rate_limit_per_min: number;
  prefix: string;
  last4: string;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('cli: setup', () => {
  it('prints {institution, admin} with an approved institution and no password fields', async () => {
    const dir = makeDataDir();
    const out = ok<{ institution: InstitutionOut & Record<string, unknown>; admin: Record<string, unknown> }>(
      await cli(dir, 'setup', '--institution', 'Riverside High', '--admin-email', 'Admin@Riverside.example', '--admin-password', PASSWORD),
    );
    expect(Object.keys(out).sort()).toEqual(['admin', 'institution']);
    expect(out.institution.name).toBe('Riverside High');
    expect(out.institution.status).toBe('approved');
    expect(out.institution.id).toMatch(/^inst_/);
    expect(out.admin.email).toBe('admin@riverside.example');
    expect(out.admin).not.toHaveProperty('password');
    expect(out.admin).not.toHaveProperty('password_hash');
    const text = JSON.stringify(out);
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain('scrypt');

    // the institution is really there and approved
    const list = ok<InstitutionOut[]>(await cli(dir, 'institution', 'list'));
    expect(list).toEqual([expect.objectContaining({ id: out.institution.id, status: 'approved' })]);
  });

  it('refuses to run twice: exit 1, conflict', async () => {
    const dir = makeDataDir();
    ok(await cli(dir, 'setup', '--institution', 'One', '--admin-email', 'a@one.example', '--admin-password', PASSWORD));
    fails(await cli(dir, 'setup', '--institution', 'Two', '--admin-email', 'b@two.example', '--admin-password', PASSWORD), 'conflict');
    const list = ok<InstitutionOut[]>(await cli(dir, 'institution', 'list'));
    expect(list.map((i) => i.name)).toEqual(['One']);
  });

  it('rejects a short password and a bad email with validation_error', async () => {
    const dir = makeDataDir();
    fails(await cli(dir, 'setup', '--institution', 'One', '--admin-email', 'a@one.example', '--admin-password', 'short'), 'validation_error');
    fails(await cli(dir, 'setup', '--institution', 'One', '--admin-email', 'not-an-email', '--admin-password', PASSWORD), 'validation_error');
    // nothing was half-made: setup still works afterwards
    expect(ok<InstitutionOut[]>(await cli(dir, 'institution', 'list'))).toEqual([]);
    ok(await cli(dir, 'setup', '--institution', 'One', '--admin-email', 'a@one.example', '--admin-password', PASSWORD));
  });
});

describe('cli: institutions', () => {
  let dir: string;
  beforeAll(() => {
    dir = makeDataDir();
  });

  it('creates a pending institution, or an approved one with --approve', async () => {
    const pending = ok<InstitutionOut>(await cli(dir, 'institution', 'create', '--name', 'Pending School'));
    expect(pending).toMatchObject({ name: 'Pending School', status: 'pending' });
    expect(pending.id).toMatch(/^inst_/);
    const approved = ok<InstitutionOut>(await cli(dir, 'institution', 'create', '--name', 'Approved School', '--approve'));
    expect(approved).toMatchObject({ name: 'Approved School', status: 'approved' });
    expect(approved.id).not.toBe(pending.id);
  });

  it('rejects an empty name with validation_error', async () => {
    fails(await cli(dir, 'institution', 'create', '--name', '   '), 'validation_error');
  });

  it('approves, suspends and re-approves; list shows the current state', async () => {
    const created = ok<InstitutionOut>(await cli(dir, 'institution', 'create', '--name', 'Lifecycle School'));
    const approved = ok<InstitutionOut>(await cli(dir, 'institution', 'approve', created.id));
    expect(approved).toMatchObject({ id: created.id, name: 'Lifecycle School', status: 'approved' });
    // approving twice is harmless
    expect(ok<InstitutionOut>(await cli(dir, 'institution', 'approve', created.id)).status).toBe('approved');

    const suspended = ok<InstitutionOut>(await cli(dir, 'institution', 'suspend', created.id));
    expect(suspended).toMatchObject({ id: created.id, status: 'suspended' });
    let list = ok<InstitutionOut[]>(await cli(dir, 'institution', 'list'));
    expect(Array.isArray(list)).toBe(true);
    expect(list.find((i) => i.id === created.id)?.status).toBe('suspended');

    expect(ok<InstitutionOut>(await cli(dir, 'institution', 'approve', created.id)).status).toBe('approved');
    list = ok<InstitutionOut[]>(await cli(dir, 'institution', 'list'));
    expect(list.find((i) => i.id === created.id)?.status).toBe('approved');
    expect(list.map((i) => i.name)).toEqual(expect.arrayContaining(['Pending School', 'Approved School', 'Lifecycle School']));
    for (const item of list) expect(['pending', 'approved', 'suspended']).toContain(item.status);
  });

  it('answers not_found for an unknown institution id', async () => {
    fails(await cli(dir, 'institution', 'approve', 'inst_doesnotexist'), 'not_found');
    fails(await cli(dir, 'institution', 'suspend', 'inst_doesnotexist'), 'not_found');
    fails(await cli(dir, 'key', 'create', '--institution', 'inst_doesnotexist', '--name', 'n', '--scopes', 'all'), 'not_found');
    fails(await cli(dir, 'key', 'list', '--institution', 'inst_doesnotexist'), 'not_found');
  });
});

describe('cli: keys', () => {
  let dir: string;
  let institutionId: string;
  beforeAll(async () => {
    dir = makeDataDir();
    institutionId = ok<InstitutionOut>(await cli(dir, 'institution', 'create', '--name', 'Key School', '--approve')).id;
  });

  it('creates a key and prints exactly the documented fields', async () => {
    const created = ok<CreatedKeyOut>(
      await cli(dir, 'key', 'create', '--institution', institutionId, '--name', 'LMS sync', '--scopes', 'students:read,exams:write', '--rate-limit', '120'),
    );
    expect(Object.keys(created).sort()).toEqual(
      ['environment', 'expires_at', 'key', 'key_id', 'last4', 'name', 'prefix', 'rate_limit_per_min', 'scopes'].sort(),
    );
    expect(created.key).toMatch(KEY_PATTERN);
    expect(created.key_id).toMatch(/^key_/);
    expect(created.name).toBe('LMS sync');
    expect([...created.scopes].sort()).toEqual(['exams:write', 'students:read']);
    expect(created.rate_limit_per_min).toBe(120);
    expect(created.prefix.length).toBeGreaterThan(0);
    expect(created.prefix.length).toBeLessThan(created.key.length);
    expect(created.key.startsWith(created.prefix)).toBe(true);
    expect(created.last4).toBe(created.key.slice(-4));
    expect(created.last4).toHaveLength(4);
  });

  it('defaults the rate limit to 600 and accepts the bounds 10 and 6000', async () => {
    const plain = ok<CreatedKeyOut>(await cli(dir, 'key', 'create', '--institution', institutionId, '--name', 'default', '--scopes', 'students:read'));
    expect(plain.rate_limit_per_min).toBe(600);
    for (const n of [10, 6000]) {
      const key = ok<CreatedKeyOut>(
        await cli(dir, 'key', 'create', '--institution', institutionId, '--name', `bound ${n}`, '--scopes', 'students:read', '--rate-limit', String(n)),
      );
      expect(key.rate_limit_per_min).toBe(n);
    }
  });

  it('expands --scopes all to every one of the 25 scopes', async () => {
    const created = ok<CreatedKeyOut>(await cli(dir, 'key', 'create', '--institution', institutionId, '--name', 'everything', '--scopes', 'all'));
    expect(created.scopes).toHaveLength(25);
    expect([...created.scopes].sort()).toEqual([...ALL_SCOPES].sort());
  });

  it('rejects an unknown scope with invalid_scopes', async () => {
    const message = fails(
      await cli(dir, 'key', 'create', '--institution', institutionId, '--name', 'bad', '--scopes', 'students:read,students:delete'),
      'invalid_scopes',
    );
    expect(message).toContain('students:delete');
  });

  it('rejects rate limits outside 10..6000 with validation_error', async () => {
    for (const n of ['9', '6001', '0', '-5', 'abc', '10.5']) {
      fails(
        await cli(dir, 'key', 'create', '--institution', institutionId, '--name', 'rl', '--scopes', 'students:read', '--rate-limit', n),
        'validation_error',
      );
    }
  });

  it('lists keys without the full key or its hash', async () => {
    const created = ok<CreatedKeyOut>(await cli(dir, 'key', 'create', '--institution', institutionId, '--name', 'listed', '--scopes', 'groups:read'));
    const result = await cli(dir, 'key', 'list', '--institution', institutionId);
    const list = ok<Array<Record<string, unknown>>>(result);
    expect(Array.isArray(list)).toBe(true);
    const entry = list.find((k) => k.key_id === created.key_id);
    expect(entry).toMatchObject({ key_id: created.key_id, name: 'listed', prefix: created.prefix, last4: created.last4, status: 'active' });
    for (const item of list) {
      expect(item).not.toHaveProperty('key');
      expect(item).not.toHaveProperty('key_hash');
    }
    expect(result.stdout).not.toContain(created.key);
    expect(result.stdout).not.toContain(sha256(created.key));
    expect(result.stdout).not.toMatch(/cb_live_[A-Za-z0-9]{32}/);
    expect(result.stdout).not.toContain('key_hash');
  });

  it('revokes a key; revoking again is harmless; an unknown key id is not_found', async () => {
    const created = ok<CreatedKeyOut>(await cli(dir, 'key', 'create', '--institution', institutionId, '--name', 'to revoke', '--scopes', 'groups:read'));
    const result = await cli(dir, 'key', 'revoke', created.key_id);
    const revoked = ok<Record<string, unknown>>(result);
    expect(revoked).toMatchObject({ key_id: created.key_id, status: 'revoked' });
    expect(typeof revoked.revoked_at).toBe('string');
    expect(revoked).not.toHaveProperty('key');
    expect(revoked).not.toHaveProperty('key_hash');
    expect(result.stdout).not.toContain(created.key);

    expect(ok<Record<string, unknown>>(await cli(dir, 'key', 'revoke', created.key_id)).status).toBe('revoked');
    const list = ok<Array<Record<string, unknown>>>(await cli(dir, 'key', 'list', '--institution', institutionId));
    expect(list.find((k) => k.key_id === created.key_id)?.status).toBe('revoked');

    fails(await cli(dir, 'key', 'revoke', 'key_doesnotexist'), 'not_found');
  });

  it('allows 25 active keys per institution; the 26th is key_limit until one is revoked', async () => {
    const inst = ok<InstitutionOut>(await cli(dir, 'institution', 'create', '--name', 'Limit School', '--approve')).id;
    const ids: string[] = [];
    for (let i = 0; i < 25; i += 1) {
      ids.push(ok<CreatedKeyOut>(await cli(dir, 'key', 'create', '--institution', inst, '--name', `k${i}`, '--scopes', 'students:read')).key_id);
    }
    fails(await cli(dir, 'key', 'create', '--institution', inst, '--name', 'k25', '--scopes', 'students:read'), 'key_limit');
    // the limit is per institution: another institution is not affected
    ok(await cli(dir, 'key', 'create', '--institution', institutionId, '--name', 'other school', '--scopes', 'students:read'));

    ok(await cli(dir, 'key', 'revoke', ids[0]!));
    ok(await cli(dir, 'key', 'create', '--institution', inst, '--name', 'k25', '--scopes', 'students:read'));
    fails(await cli(dir, 'key', 'create', '--institution', inst, '--name', 'k26', '--scopes', 'students:read'), 'key_limit');
    const list = ok<Array<{ status: string }>>(await cli(dir, 'key', 'list', '--institution', inst));
    expect(list).toHaveLength(26);
    expect(list.filter((k) => k.status === 'active')).toHaveLength(25);
  });

  it('stores only the SHA-256 hash of a key', async () => {
    const keyDir = makeDataDir();
    const inst = ok<InstitutionOut>(await cli(keyDir, 'institution', 'create', '--name', 'Hash School', '--approve')).id;
    const created = ok<CreatedKeyOut>(await cli(keyDir, 'key', 'create', '--institution', inst, '--name', 'hashed', '--scopes', 'all'));

    const db = await connectDatabase(await dataDirDatabase(keyDir));
    try {
      const rows = await db.sequelize.query<Record<string, unknown>>('SELECT * FROM api_keys WHERE id = ?', {
        replacements: [created.key_id],
        type: QueryTypes.SELECT,
      });
      expect(rows).toHaveLength(1);
      const row = rows[0]!;
      expect(row.key_hash).toBe(sha256(created.key));
      expect(row.institution_id).toBe(inst);
      for (const [column, value] of Object.entries(row)) {
        expect(String(value), `api_keys.${column}`).not.toContain(created.key);
      }
      // nor in any other table
      const tables = (await db.sequelize.getQueryInterface().showAllTables()) as string[];
      expect(tables).toContain('api_keys');
      for (const name of tables) {
        const all = await db.sequelize.query(`SELECT * FROM "${name.replaceAll('"', '""')}"`, { type: QueryTypes.SELECT });
        expect(JSON.stringify(all), `table ${name}`).not.toContain(created.key);
      }
    } finally {
      await db.close();
    }

    // nor anywhere in the data folder's files (database, WAL, anything else)
    const secretPart = created.key.slice('cb_live_'.length);
    for (const entry of fs.readdirSync(keyDir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const bytes = fs.readFileSync(path.join(entry.parentPath, entry.name));
      expect(bytes.includes(Buffer.from(secretPart)), entry.name).toBe(false);
    }
  });

  it('stores the admin password only as a hash', async () => {
    const setupDir = makeDataDir();
    ok(await cli(setupDir, 'setup', '--institution', 'Pw School', '--admin-email', 'pw@school.example', '--admin-password', PASSWORD));
    for (const entry of fs.readdirSync(setupDir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      expect(fs.readFileSync(path.join(entry.parentPath, entry.name)).includes(Buffer.from(PASSWORD)), entry.name).toBe(false);
    }
  });
});

describe('cli: bad usage exits 2', () => {
  let dir: string;
  let institutionId: string;
  beforeAll(async () => {
    dir = makeDataDir();
    institutionId = ok<InstitutionOut>(await cli(dir, 'institution', 'create', '--name', 'Usage School', '--approve')).id;
  });

  it.each([
    ['no command', []],
    ['unknown command', ['frobnicate']],
    ['unknown subcommand', ['institution', 'frobnicate']],
    ['setup without --admin-password', ['setup', '--institution', 'X', '--admin-email', 'a@x.example']],
    ['institution create without --name', ['institution', 'create']],
    ['institution approve without id', ['institution', 'approve']],
    ['institution list with an unknown option', ['institution', 'list', '--verbose']],
    ['key create without --scopes', ['key', 'create', '--institution', 'inst_x', '--name', 'n']],
    ['key create without --institution', ['key', 'create', '--name', 'n', '--scopes', 'all']],
    ['key create with an unknown option', ['key', 'create', '--institution', 'inst_x', '--name', 'n', '--scopes', 'all', '--colour', 'red']],
    ['key list without --institution', ['key', 'list']],
    ['key revoke without id', ['key', 'revoke']],
    ['key revoke with an extra argument', ['key', 'revoke', 'key_a', 'key_b']],
  ])('%s', async (_label, argv) => {
    const result = await cli(dir, ...argv);
    usage(result);
    expect(result.stdout).toBe('');
  });

  it('bad usage changes nothing', async () => {
    usage(await cli(dir, 'key', 'create', '--institution', institutionId, '--name', 'n', '--scopes', 'all', '--bogus'));
    expect(ok<unknown[]>(await cli(dir, 'key', 'list', '--institution', institutionId))).toEqual([]);
  });
});

describe('cli: the real bundle (node dist/server/cli.js)', () => {
  let dir: string;
  beforeAll(() => {
    dir = makeDataDir();
  });

  it('exits 0 with exactly one JSON value on stdout, 1 on a failure, 2 on bad usage', () => {
    const setup = spawnCli(dir, 'setup', '--institution', 'Spawned School', '--admin-email', 'ops@spawned.example', '--admin-password', PASSWORD);
    expect(setup.stderr).toBe('');
    expect(setup.code).toBe(0);
    const out = JSON.parse(setup.stdout) as { institution: InstitutionOut; admin: Record<string, unknown> };
    expect(out.institution.status).toBe('approved');
    expect(out.admin).not.toHaveProperty('password_hash');

    const created = spawnCli(dir, 'key', 'create', '--institution', out.institution.id, '--name', 'spawned', '--scopes', 'all', '--rate-limit', '60');
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout) as CreatedKeyOut; // throws unless stdout is one JSON value
    expect(key.key).toMatch(KEY_PATTERN);
    expect(key.rate_limit_per_min).toBe(60);
    expect(key.scopes).toHaveLength(25);

    const list = spawnCli(dir, 'key', 'list', '--institution', out.institution.id);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toHaveLength(1);
    expect(list.stdout).not.toContain(key.key);

    const again = spawnCli(dir, 'setup', '--institution', 'Again', '--admin-email', 'b@spawned.example', '--admin-password', PASSWORD);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toContain('conflict');
    expect(again.stderr.trimEnd().split('\n')).toHaveLength(1);

    const badScope = spawnCli(dir, 'key', 'create', '--institution', out.institution.id, '--name', 'x', '--scopes', 'nope:read');
    expect(badScope.code).toBe(1);
    expect(badScope.stderr).toContain('invalid_scopes');

    const unknown = spawnCli(dir, 'frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).not.toBe('');

    const missing = spawnCli(dir, 'institution', 'create');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--name');
  });

  it('reads DATA_DIR: the database file lives there', () => {
    const fresh = makeDataDir();
    const result = spawnCli(fresh, 'institution', 'list');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([]);
    expect(fs.existsSync(path.join(fresh, 'campusbridge.sqlite'))).toBe(true);
  });
});
