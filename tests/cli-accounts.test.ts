// @tier integration
// @databases sqlite, postgres
// The account commands of docs/api.md#command-line (`account list`, `account password`, `institution
// invite-admin`) and the portal sign-in `demo seed` prints: one JSON value and exit 0, a one-line
// error code and exit 1, bad usage exit 2; the links and passwords they make work in a real appliance.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../server/cli/program.js';
import { INVITE_TTL_MS } from '../server/commands/accounts/invitations.js';
import { hashToken } from '../server/crypto/tokens.js';
import { newId } from '../server/ids.js';
import { startTestAppliance, tempDataDirs, type TestAppliance } from './helpers/appliance.js';
import { cliFails, cliOk, type CliResult } from './helpers/cli.js';
import { dataDirEnv } from './helpers/postgres.js';
import { expectError, ok, signIn } from './helpers/portal.js';

const makeDataDir = tempDataDirs('campusbridge-cli-accounts-');
const OPERATOR_PASSWORD = 'correct horse battery';

async function cli(dataDir: string, argv: string[], env: Record<string, string> = {}, readSecret?: () => Promise<string>): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    env: { ...(await dataDirEnv(dataDir)), ...env },
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    readSecret,
  });
  return { code, stdout, stderr };
}

function usage(result: CliResult): void {
  expect(result.code, `stdout: ${result.stdout} stderr: ${result.stderr}`).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr.trim()).not.toBe('');
}

describe('CLI: accounts', () => {
  const dataDir = makeDataDir();
  let institutionId: string;
  let app: TestAppliance | null = null;

  beforeAll(async () => {
    const setup = cliOk<{ institution: { id: string } }>(
      await cli(dataDir, ['setup', '--institution', 'Riverside High', '--admin-email', 'op@riverside.test', '--admin-password', OPERATOR_PASSWORD]),
    );
    institutionId = setup.institution.id;
  });
  afterAll(async () => {
    // The data folder is removed by tempDataDirs.
    if (app) await app.stop();
  });

  it('`account list` prints every account with each role; --institution narrows it', async () => {
    const other = cliOk<{ id: string }>(await cli(dataDir, ['institution', 'create', '--name', 'Hill School', '--approve']));
    const all = cliOk<{ items: unknown[] }>(await cli(dataDir, ['account', 'list']));
    expect(all).toEqual({
      items: [
        { email: 'op@riverside.test', role: 'operator', institution_id: null, status: 'active' },
        { email: 'op@riverside.test', role: 'admin', institution_id: institutionId, status: 'active' },
      ],
    });
    expect(cliOk(await cli(dataDir, ['account', 'list', '--institution', other.id]))).toEqual({ items: [] });
    cliFails(await cli(dataDir, ['account', 'list', '--institution', 'inst_nothing']), 'not_found');
  });

  it('`account password` takes CAMPUSBRIDGE_PASSWORD (or a prompt on a terminal), else exit 2; sessions end', async () => {
    const email = ['--email', 'op@riverside.test'];
    usage(await cli(dataDir, ['account', 'password', ...email]));
    usage(await cli(dataDir, ['account', 'password']));
    cliFails(await cli(dataDir, ['account', 'password', ...email], { CAMPUSBRIDGE_PASSWORD: 'short' }), 'validation_error');
    cliFails(await cli(dataDir, ['account', 'password', '--email', 'nobody@riverside.test'], { CAMPUSBRIDGE_PASSWORD: 'long enough 1' }), 'not_found');

    app = await startTestAppliance({ dataDir });
    const before = await signIn(app, 'op@riverside.test', OPERATOR_PASSWORD);
    expect(cliOk(await cli(dataDir, ['account', 'password', '--email', 'OP@riverside.test'], { CAMPUSBRIDGE_PASSWORD: 'set from the cli' }))).toEqual({
      email: 'op@riverside.test',
    });
    expectError(await before.agent.get('/portal/api/session'), 401, 'unauthorized');
    await signIn(app, 'op@riverside.test', 'set from the cli');

    // On a terminal the password is asked for.
    let asked = '';
    const prompted = await cli(dataDir, ['account', 'password', ...email], {}, async () => {
      asked = 'yes';
      return 'typed at the prompt';
    });
    expect(cliOk(prompted)).toEqual({ email: 'op@riverside.test' });
    expect(asked).toBe('yes');
    await signIn(app, 'op@riverside.test', 'typed at the prompt');
  });

  it('`institution invite-admin` prints a link on public_url, valid 7 days, that makes the admin', async () => {
    const school = cliOk<{ id: string }>(await cli(dataDir, ['institution', 'create', '--name', 'Valley School', '--approve']));
    usage(await cli(dataDir, ['institution', 'invite-admin', school.id]));
    cliFails(await cli(dataDir, ['institution', 'invite-admin', 'inst_nothing', '--email', 'a@valley.test']), 'not_found');
    cliFails(await cli(dataDir, ['institution', 'invite-admin', school.id, '--email', 'not an email']), 'validation_error');
    cliOk(await cli(dataDir, ['settings', 'set', 'public_url', 'http://campusbridge.valley.test:4780']));

    const printed = cliOk<{ invite_url: string; expires_at: string }>(
      await cli(dataDir, ['institution', 'invite-admin', school.id, '--email', 'Head@Valley.test']),
    );
    expect(Object.keys(printed).sort()).toEqual(['expires_at', 'invite_url']);
    const token = /^http:\/\/campusbridge\.valley\.test:4780\/#\/accept-invite\?token=([A-Za-z0-9]{40})$/.exec(printed.invite_url)?.[1];
    expect(token).toBeDefined();
    const expiresIn = Date.parse(printed.expires_at) - Date.now();
    expect(expiresIn).toBeGreaterThan(INVITE_TTL_MS - 60_000);
    expect(expiresIn).toBeLessThanOrEqual(INVITE_TTL_MS);

    app ??= await startTestAppliance({ dataDir });
    const invitation = await app.ctx.db.models.Invitation.findOne({ where: { token_hash: hashToken(token!) } });
    expect(invitation).toMatchObject({ role: 'admin', institution_id: school.id, invited_by: null });
    const accepted = ok(await app.http.post('/portal/api/invitations/accept').send({ token, password: 'head of valley' }));
    expect(accepted).toMatchObject({ institution_id: school.id, role: 'admin', created_account: true });
    const listed = cliOk<{ items: unknown[] }>(await cli(dataDir, ['account', 'list', '--institution', school.id]));
    expect(listed.items).toEqual([{ email: 'head@valley.test', role: 'admin', institution_id: school.id, status: 'active' }]);
    cliFails(await cli(dataDir, ['institution', 'invite-admin', school.id, '--email', 'head@valley.test']), 'already_added');
  });

  it('a suspended membership shows as suspended', async () => {
    app ??= await startTestAppliance({ dataDir });
    const { Membership, PortalAccount } = app.ctx.db.models;
    const account = await PortalAccount.create({ id: newId('acc'), email: 'paused@riverside.test', password_hash: null, is_operator: false, status: 'active' });
    await Membership.create({ id: newId('mem'), institution_id: institutionId, account_id: account.id, role: 'developer', status: 'suspended' });
    const listed = cliOk<{ items: unknown[] }>(await cli(dataDir, ['account', 'list', '--institution', institutionId]));
    expect(listed.items).toContainEqual({ email: 'paused@riverside.test', role: 'developer', institution_id: institutionId, status: 'suspended' });
  });
});

describe('demo seed: how to open the demo institution in the portal', () => {
  // The demo seed is heavy: on a busy machine it took over a minute, so the bound only a hang reaches is three.
  it('prints its admin sign-in, which opens the demo institution', { timeout: 180_000 }, async () => {
    const dataDir = makeDataDir();
    const seeded = cliOk<{ institution: { id: string }; portal: { url: string; email: string; password: string } }>(await cli(dataDir, ['demo', 'seed']));
    expect(seeded.portal.email).toMatch(/^admin@demo-academy\.campusbridge\.local$/);
    expect(seeded.portal.password.length).toBeGreaterThanOrEqual(10);
    // The CLI's public_url: nothing set, so the default listening address.
    expect(seeded.portal.url).toBe('http://127.0.0.1:4780');
    const app = await startTestAppliance({ dataDir });
    try {
      const admin = await signIn(app, seeded.portal.email, seeded.portal.password);
      expect(admin.session.memberships).toEqual([{ institution: expect.objectContaining({ id: seeded.institution.id }), role: 'admin', sandbox_id: null }]);
      ok(await admin.agent.get(`/portal/api/institutions/${seeded.institution.id}/students`));
      // Only the hash is stored.
      const account = await app.ctx.db.models.PortalAccount.findOne({ where: { email: seeded.portal.email } });
      expect(account!.password_hash).not.toContain(seeded.portal.password);
    } finally {
      await app.close();
    }
  });
});
