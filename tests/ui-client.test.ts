// @tier unit
// The portal and the learner side call the API only through clients typed by its OpenAPI
// documents: every request names a declared path as a literal (openapi-fetch fills in its
// parameters), and every such path and method is in the document it is typed by. A request path
// built by hand, or a call of an operation the server no longer declares, fails here (and in tsc).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument, institutionOperations } from '../server/http/openapi.js';
import { apiRoutes, portalRoutes } from '../server/routes/index.js';
import { LoginThrottle } from '../server/portal/login-throttle.js';

const uiRoot = path.resolve(import.meta.dirname, '..', 'ui', 'src');
const GENERATED = path.join(uiRoot, 'api', 'generated');

function sources(dir: string): Array<{ file: string; text: string }> {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true }).flatMap((entry) => {
    const file = path.join(entry.parentPath, entry.name);
    if (!entry.isFile() || !/\.tsx?$/.test(entry.name) || file.startsWith(GENERATED)) return [];
    return [{ file: path.relative(uiRoot, file), text: fs.readFileSync(file, 'utf8') }];
  });
}

const files = sources(uiRoot);
/** `portal.GET('/path'`, `v1.POST(\`…\``, …: each call of a typed client, with how its path is written. */
const CALL = /\b(portal|v1)\.(GET|POST|PUT|PATCH|DELETE|HEAD)\(\s*(['"`])([^'"`]*)\3/g;
const calls = files.flatMap(({ file, text }) =>
  [...text.matchAll(CALL)].map((match) => ({ file, client: match[1]!, method: match[2]!.toLowerCase(), quote: match[3]!, path: match[4]! })),
);

type Doc = { paths: Record<string, Record<string, unknown>> };
const documents: Record<string, Doc> = {
  portal: buildOpenApiDocument([...portalRoutes(new LoginThrottle()), ...institutionOperations(apiRoutes)], 'portal') as unknown as Doc,
  v1: buildOpenApiDocument(apiRoutes, 'api') as unknown as Doc,
};

describe('the UI calls the API through its typed clients', () => {
  it('finds the calls (the portal and the learner side)', () => {
    expect(calls.filter((call) => call.client === 'portal').length).toBeGreaterThan(100);
    expect(calls.filter((call) => call.client === 'v1').length).toBeGreaterThan(10);
  });

  it('names every path as a plain literal, never a template', () => {
    const built = calls.filter((call) => call.quote === '`' || call.path.includes('${'));
    expect(built.map((call) => `${call.file}: ${call.client}.${call.method.toUpperCase()}(${call.path})`)).toEqual([]);
  });

  it('calls only operations its document declares, with that method', () => {
    const undeclared = calls.filter((call) => !documents[call.client]!.paths[call.path]?.[call.method]);
    expect(undeclared.map((call) => `${call.file}: ${call.method.toUpperCase()} ${call.path} is not in the ${call.client} document`)).toEqual([]);
  });

  it('has no other way out: no path-string wrapper, fetch only for the learner client and signed links the server handed out', () => {
    const fetching = files.filter(({ text }) => /\bfetch\(/.test(text)).map(({ file }) => file);
    expect(fetching.sort()).toEqual(['learner/Archives.tsx', 'learner/api.ts']);
    // Links to the API reference (`/v1/docs`, a page for people) are not requests.
    const handBuilt = files.filter(({ text }) => /['"`]\/(portal\/api|v1)\/(?!docs['"])/.test(text)).map(({ file }) => file);
    expect(handBuilt).toEqual(['api/portal.ts']);
  });
});
