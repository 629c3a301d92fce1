// @tier unit
// The layering lint can fail: an import that runs back up a layer is an error (docs/architecture.md#layers).
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint();

async function boundaryErrors(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath });
  return (result?.messages ?? []).filter((message) => message.ruleId === 'boundaries/dependencies').map((message) => message.message);
}

describe('the import-boundary rule', () => {
  it.each([
    ['server/commands/probe.ts', "import { mountRoutes } from '../http/mount.js';\nexport const probe = mountRoutes;\n", 'commands', 'edge'],
    ['server/ids.ts', "import { apiRoutes } from './routes/index.js';\nexport const probe = apiRoutes;\n", 'foundation', 'edge'],
    ['server/context.ts', "import { startWebhookEngine } from './webhooks/engine.js';\nexport const probe = startWebhookEngine;\n", 'foundation', 'services'],
    ['server/models/probe.ts', "import { createStudent } from '../commands/students.js';\nexport const probe = createStudent;\n", 'data', 'commands'],
    [
      'server/webhooks/probe.ts',
      "import { createEndpoint } from '../commands/webhook-endpoints.js';\nexport const probe = createEndpoint;\n",
      'services',
      'commands',
    ],
    // The typed client is copied into integrators' programs: no server code may come with it.
    ['server/client/probe.ts', "import { AppError } from '../errors.js';\nexport const probe = AppError;\n", 'client', 'foundation'],
    ['server/routes/probe.ts', "import { createClient } from '../client/index.js';\nexport const probe = createClient;\n", 'edge', 'client'],
  ])('%s importing upwards is an error', async (filePath, source, from, to) => {
    const errors = await boundaryErrors(filePath, source);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`"${from}"`);
    expect(errors[0]).toContain(`"${to}"`);
  });

  it('allows the layers to point down', async () => {
    expect(
      await boundaryErrors('server/routes/probe.ts', "import { createStudent } from '../commands/students.js';\nexport const probe = createStudent;\n"),
    ).toEqual([]);
    expect(await boundaryErrors('server/commands/probe.ts', "import { hashToken } from '../crypto/tokens.js';\nexport const probe = hashToken;\n")).toEqual([]);
  });
});
