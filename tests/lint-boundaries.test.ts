// @tier unit
// The layering lint can fail: an import that runs back up a layer is an error, and so is a server
// file in no layer; and docs/architecture.md#layers shows the lint's own table (build/layers.mjs).
import fs from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const eslint = new ESLint({ cwd: root });

interface Layer {
  layer: string;
  group?: string;
  paths: string[];
  imports: string[];
  typeImports?: string[];
}
// @ts-expect-error: plain ESM module without type declarations
const { LAYERS } = (await import('../build/layers.mjs')) as { LAYERS: Layer[] };

async function boundaryErrors(filePath: string, source: string, rule = 'boundaries/dependencies'): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath });
  return (result?.messages ?? []).filter((message) => message.ruleId === rule).map((message) => message.message);
}

/** Linting `source` as the file at `filePath` gives exactly one boundary error, from layer `from` to layer `to`. */
async function expectBoundaryError(filePath: string, source: string, from: string, to: string): Promise<void> {
  const errors = await boundaryErrors(filePath, source);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toContain(`"${from}"`);
  expect(errors[0]).toContain(`"${to}"`);
}

describe('the import-boundary rule', () => {
  it.each([
    ['server/commands/probe.ts', "import { mountRoutes } from '../http/mount.js';\nexport const probe = mountRoutes;\n", 'commands', 'http'],
    ['server/ids.ts', "import { apiRoutes } from './routes/index.js';\nexport const probe = apiRoutes;\n", 'foundation', 'routes'],
    ['server/context.ts', "import { startWebhookEngine } from './webhooks/engine.js';\nexport const probe = startWebhookEngine;\n", 'foundation', 'webhooks'],
    ['server/models/probe.ts', "import { createStudent } from '../commands/people/students.js';\nexport const probe = createStudent;\n", 'data', 'commands'],
    [
      'server/webhooks/probe.ts',
      "import { createEndpoint } from '../commands/webhooks/endpoints.js';\nexport const probe = createEndpoint;\n",
      'webhooks',
      'commands',
    ],
    // The typed client is copied into integrators' programs: no server code may come with it.
    ['server/client/probe.ts', "import { AppError } from '../errors.js';\nexport const probe = AppError;\n", 'client', 'foundation'],
    ['server/routes/probe.ts', "import { createClient } from '../client/index.js';\nexport const probe = createClient;\n", 'routes', 'client'],
  ])('%s importing upwards is an error', expectBoundaryError);

  it.each([
    [
      'server/settings/probe.ts',
      "import { createStudent } from '../commands/people/students.js';\nexport const probe = createStudent;\n",
      'settings',
      'commands',
    ],
    [
      'server/outbound/probe.ts',
      "import { createStudent } from '../commands/people/students.js';\nexport const probe = createStudent;\n",
      'outbound',
      'commands',
    ],
    ['server/html.ts', "import { sendQueuedMail } from './mail/mailer.js';\nexport const probe = sendQueuedMail;\n", 'foundation', 'mail'],
    ['server/settings/values.ts', "import { SETTING_NAMES } from './appliance-settings.js';\nexport const probe = SETTING_NAMES;\n", 'foundation', 'settings'],
    [
      'server/commands/probe.ts',
      "import { tuneGarbageCollection } from '../gc-tuning.js';\nexport const probe = tuneGarbageCollection;\n",
      'commands',
      'entry',
    ],
  ])('%s, once in no layer, importing upwards is an error', expectBoundaryError);

  // `server/cli.ts` was once named as an entry file; the CLI's entry is server/cli/main.ts, in `cli`.
  it.each(['server/newfolder/probe.ts', 'server/probe.ts', 'server/cli.ts'])('%s, a server file in no layer, is an error', async (filePath) => {
    expect(await boundaryErrors(filePath, 'export const probe = 1;\n', 'boundaries/no-unknown-files')).toHaveLength(1);
  });

  it('lets the foundation import the data layer by `import type` only', async () => {
    await expectBoundaryError(
      'server/config.ts',
      "import { connectDatabase } from './db/index.js';\nexport const probe = connectDatabase;\n",
      'foundation',
      'data',
    );
    // An inline `type` leaves the import itself in the output (verbatimModuleSyntax): a value import.
    await expectBoundaryError('server/config.ts', "import { type Database } from './db/index.js';\nexport type Probe = Database;\n", 'foundation', 'data');
    expect(await boundaryErrors('server/config.ts', "import type { Database } from './db/index.js';\nexport type Probe = Database;\n")).toEqual([]);
  });

  it.each([
    ['server/webhooks/probe.ts', "import { emit } from '../events/emit.js';\nexport const probe = emit;\n", 'webhooks', 'events'],
    ['server/mail/probe.ts', "import { signatureHeaders } from '../webhooks/signing.js';\nexport const probe = signatureHeaders;\n", 'mail', 'webhooks'],
    ['server/files/probe.ts', "import { nextRetryAt } from '../mail/mailer.js';\nexport const probe = nextRetryAt;\n", 'files', 'mail'],
    ['server/settings/probe.ts', "import { uploadsRoot } from '../files/storage.js';\nexport const probe = uploadsRoot;\n", 'settings', 'files'],
    [
      'server/outbound/probe.ts',
      "import { SETTING_NAMES } from '../settings/appliance-settings.js';\nexport const probe = SETTING_NAMES;\n",
      'outbound',
      'settings',
    ],
  ])('in the services (events, webhooks, mail, files, settings, outbound), %s importing upwards is an error', expectBoundaryError);

  it.each([
    ['server/http/probe.ts', "import { apiRoutes } from '../routes/index.js';\nexport const probe = apiRoutes;\n", 'http', 'routes'],
    ['server/portal/probe.ts', "import { mountRoutes } from '../http/mount.js';\nexport const probe = mountRoutes;\n", 'portal', 'http'],
  ])('in the edge (routes, http, portal), %s importing upwards is an error', expectBoundaryError);

  it('lets the portal UI import the server by `import type` only, and only the layers of the API', async () => {
    await expectBoundaryError(
      'ui/src/probe.ts',
      "import { sessionSchema } from '../../server/routes/account/account';\nexport const probe = sessionSchema;\n",
      'ui',
      'routes',
    );
    await expectBoundaryError('ui/src/probe.ts', "import type { Database } from '../../server/db/index';\nexport type Probe = Database;\n", 'ui', 'data');
    await expectBoundaryError(
      'ui/src/probe.ts',
      "import type { AppContext } from '../../server/context';\nexport type Probe = AppContext;\n",
      'ui',
      'foundation',
    );
  });

  it('keeps the server from importing the portal UI', async () => {
    await expectBoundaryError('server/routes/probe.ts', "import { portal } from '../../ui/src/api/portal';\nexport const probe = portal;\n", 'routes', 'ui');
  });

  it('allows the layers to point down', async () => {
    expect(
      await boundaryErrors('server/routes/probe.ts', "import { createStudent } from '../commands/people/students.js';\nexport const probe = createStudent;\n"),
    ).toEqual([]);
    expect(await boundaryErrors('server/commands/probe.ts', "import { hashToken } from '../crypto/tokens.js';\nexport const probe = hashToken;\n")).toEqual([]);
    expect(await boundaryErrors('server/events/probe.ts', "import { postWebhook } from '../webhooks/sender.js';\nexport const probe = postWebhook;\n")).toEqual(
      [],
    );
    expect(await boundaryErrors('server/routes/probe.ts', "import { mountRoutes } from '../http/mount.js';\nexport const probe = mountRoutes;\n")).toEqual([]);
    expect(await boundaryErrors('server/http/probe.ts', "import { requireCsrf } from '../portal/csrf.js';\nexport const probe = requireCsrf;\n")).toEqual([]);
    expect(
      await boundaryErrors(
        'ui/src/probe.ts',
        "import type { sessionSchema } from '../../server/routes/account/account';\nexport type Probe = typeof sessionSchema;\n",
      ),
    ).toEqual([]);
  });
});

/**
 * The table under docs/architecture.md's "Layers": a layer (`group: ` before it for the edge and the
 * services), its folders and files, and what it may import, with what it may import as types only
 * after `; types only:`. Names and paths are in backticks; words around them are notes.
 */
function documentedLayers(): Layer[] {
  const text = fs.readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');
  const section = text.slice(text.indexOf('\n## Layers\n')).split(/\n## /)[1]!;
  const quoted = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!).sort();
  return section
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .slice(2)
    .map((row) => {
      const [layer = '', paths = '', imports = ''] = row.split('|').slice(1, -1);
      const [values = '', types] = imports.split('; types only:');
      return {
        layer: quoted(layer)[0]!,
        group: /^\s*(\w+):/.exec(layer)?.[1],
        paths: quoted(paths),
        imports: quoted(values),
        typeImports: types === undefined ? undefined : quoted(types),
      };
    });
}

describe('the layer table', () => {
  it('is the one the lint uses', async () => {
    const config = (await eslint.calculateConfigForFile('server/ids.ts')) as { settings: { 'boundaries/elements': Array<{ type: string }> } };
    expect(new Set(config.settings['boundaries/elements'].map((element) => element.type))).toEqual(new Set(LAYERS.map((layer) => layer.layer)));
  });

  it('is the one docs/architecture.md#layers shows', () => {
    const sorted = (names: string[] | undefined) => (names ? [...names].sort() : undefined);
    expect(documentedLayers()).toEqual(
      LAYERS.map((layer) => ({ ...layer, paths: sorted(layer.paths), imports: sorted(layer.imports), typeImports: sorted(layer.typeImports) })),
    );
  });
});
