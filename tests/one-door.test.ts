// @tier unit
// One door for every caller: each operation and page is a `defineRoute` declaration listed in the
// one registry (`routeRegistry`, server/routes/index.ts) and mounted by `mountRoutes`, the two
// OpenAPI documents included; no other server file registers an Express handler for a path, apart
// from the learner page's framing check, which runs before helmet and hands on to the declared route.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LoginThrottle } from '../server/portal/login-throttle.js';
import { routeRegistry } from '../server/routes/index.js';

const serverRoot = path.resolve(import.meta.dirname, '..', 'server');
const files = fs
  .readdirSync(serverRoot, { withFileTypes: true, recursive: true })
  .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
  .map((entry) => path.join(entry.parentPath, entry.name))
  .filter((file) => !file.includes(`${path.sep}client${path.sep}`));

/** `app.get('/path', …)`, `router.post(\`/…\`, …)`: a handler registered for a path by hand. */
const REGISTRATION = /\b(\w+)\.(get|post|put|patch|delete|head|all)\(\s*['"`](\/[^'"`]*)['"`]/g;
const ALLOWED = ["server/app.ts: app.get('/launch')"];

describe('one door for every caller', () => {
  it('registers no Express handler for a path outside the mounter, but the framing check', () => {
    const found = files.flatMap((file) =>
      [...fs.readFileSync(file, 'utf8').matchAll(REGISTRATION)].map(
        (match) => `${path.relative(path.dirname(serverRoot), file)}: ${match[1]}.${match[2]}('${match[3]}')`,
      ),
    );
    expect(found.sort()).toEqual([...ALLOWED].sort());
  });

  it('branches on the caller kind only in the mounter (with its portal checks) and the document builder', () => {
    const BRANCH = /\.caller\s*[!=]==/;
    const branching = files.filter((file) => BRANCH.test(fs.readFileSync(file, 'utf8'))).map((file) => path.relative(path.dirname(serverRoot), file));
    expect(branching.sort()).toEqual(['server/http/mount.ts', 'server/http/openapi-answers.ts', 'server/http/openapi.ts', 'server/http/portal-caller.ts']);
  });

  it('mounts the learner page, the LTI tool, guardian links and the health check from the registry', () => {
    const registry = routeRegistry(new LoginThrottle());
    const atRoot = registry['/'].map((route) => `${route.method.toUpperCase()} ${route.path}`);
    for (const page of [
      'GET /launch',
      'GET /healthz',
      'POST /lti/launch',
      'GET /lti/login',
      'POST /lti/login',
      'HEAD /guardian/accept',
      'GET /guardian/accept',
    ]) {
      expect(atRoot).toContain(page);
    }
    expect(registry['/'].every((route) => route.caller === 'anyone')).toBe(true);
    // Each document is a declared operation of its own mount, so it documents itself.
    for (const mount of ['/v1', '/portal/api'] as const) expect(registry[mount].map((route) => route.path)).toContain('/openapi.json');
    expect(registry['/v1'].length).toBeGreaterThan(90);
    expect(registry['/portal/api'].length).toBeGreaterThan(50);
  });
});
