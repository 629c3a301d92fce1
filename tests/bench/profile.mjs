// Where the server's CPU went, from the V8 profile written by `--cpu-prof` (`--profile`): self
// time per function and per package, the idle share included.
import fs from 'node:fs';

const where = (url) => {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.includes('dist/server')) return 'appliance';
  if (url.startsWith('node:') || url === '') return 'node';
  return url.split('/').slice(-2).join('/');
};

export function summarizeProfile(file, top = 15) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const hits = new Map();
  const gaps = profile.timeDeltas ?? [];
  profile.samples.forEach((id, i) => hits.set(id, (hits.get(id) ?? 0) + (gaps[i] ?? 0)));
  const total = [...hits.values()].reduce((sum, us) => sum + us, 0) || 1;
  const functions = new Map();
  const packages = new Map();
  for (const [id, us] of hits) {
    const { callFrame } = byId.get(id);
    const name = `${callFrame.functionName || '(anonymous)'} ${where(callFrame.url)}${callFrame.url ? `:${callFrame.lineNumber + 1}` : ''}`;
    functions.set(name, (functions.get(name) ?? 0) + us);
    const pkg = callFrame.url ? where(callFrame.url) : callFrame.functionName;
    packages.set(pkg, (packages.get(pkg) ?? 0) + us);
  }
  const ranked = (map) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, share: us / total }));
  return { seconds: total / 1e6, functions: ranked(functions), packages: ranked(packages) };
}
