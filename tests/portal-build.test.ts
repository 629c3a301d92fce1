// @tier unit
// The portal in dist/ui, as the tests' global setup built it (under vitest's NODE_ENV=test) and as
// `npm start` then serves it, is React's production build: the development build does several
// times the rendering work and checks every render for warnings.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const assets = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'ui', 'assets');

describe('the built portal', () => {
  it("carries React's production build, none of its development checks", () => {
    const scripts = fs.readdirSync(assets).filter((name) => name.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(10);
    const development = scripts.filter((name) => {
      const code = fs.readFileSync(path.join(assets, name), 'utf8');
      // Messages only React's development bundles contain.
      return code.includes('Each child in a list should have a unique') || code.includes('jsxDEV');
    });
    expect(development).toEqual([]);
  });
});
