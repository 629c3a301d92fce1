// @tier unit
// No module of the server imports itself back through others (docs/architecture.md#layers): an
// import circle makes load order matter and layers meaningless. Type-only imports are erased at
// run time and do not count.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');

function serverModules(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) serverModules(full, out);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** Run-time imports of one module: relative `import … from` (not `import type`), resolved to files. */
function runtimeImports(file: string): string[] {
  const source = fs.readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of source.matchAll(/^import (?!type )[^;]*?from '(\.[^']+)'/gms)) {
    const target = path.join(path.dirname(file), match[1]!).replace(/\.js$/, '.ts');
    if (fs.existsSync(target)) found.push(target);
  }
  return found;
}

function importCycles(files: string[]): string[] {
  const graph = new Map(files.map((file) => [file, runtimeImports(file)]));
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next].map((f) => path.relative(root, f)).join(' → '));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file);
  return cycles;
}

it('the server has no import circles', () => {
  const files = serverModules(path.join(root, 'server'));
  expect(files.length).toBeGreaterThan(150);
  expect(importCycles(files)).toEqual([]);
});

it('the check finds a circle when there is one', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-cycle-'));
  try {
    fs.writeFileSync(path.join(dir, 'a.ts'), "import { b } from './b.js';\nexport const a = () => b;\n");
    fs.writeFileSync(path.join(dir, 'b.ts'), "import { a } from './a.js';\nexport const b = () => a;\n");
    fs.writeFileSync(path.join(dir, 'c.ts'), "import type { a } from './a.js';\nexport type C = typeof a;\n");
    expect(importCycles(serverModules(dir))).toHaveLength(1);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
