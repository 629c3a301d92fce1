// @tier unit
// The installer configuration (build/electron-builder.yml) and the CI workflow that runs it cannot
// be exercised here (Electron's binary is not downloadable), so they are checked statically:
// electron-builder's own schema and loader, every file they name, and the bundles they pack.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse, parseDocument } from 'yaml';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
// The glob matcher electron-builder itself matches `files` and `asarUnpack` with.
const { minimatch } = createRequire(require.resolve('app-builder-lib/package.json'))('minimatch') as {
  minimatch(file: string, pattern: string): boolean;
};
const CONFIG_FILE = 'build/electron-builder.yml';
const WORKFLOW_FILE = '.github/workflows/installers.yml';

type Json = Record<string, any>;

function readYaml(file: string): Json {
  const document = parseDocument(fs.readFileSync(path.join(root, file), 'utf8'));
  const problems = [...document.errors, ...document.warnings];
  if (problems.length) throw new Error(`${file}: ${problems.map((problem) => problem.message).join('; ')}`);
  return document.toJS() as Json;
}

const config = readYaml(CONFIG_FILE);
const packageJson = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as Json;

/** Target names of one platform section, whether written as strings or `{ target, arch }`. */
function targets(platform: Json | undefined): string[] {
  const list: unknown[] = Array.isArray(platform?.target) ? platform.target : [platform?.target];
  return list.map((entry) => (typeof entry === 'string' ? entry : (entry as Json)?.target)).filter(Boolean);
}

/** Reads the width and height from a PNG's IHDR chunk. */
function pngSize(file: string): { width: number; height: number } {
  const data = fs.readFileSync(file);
  expect(data.subarray(1, 4).toString('ascii')).toBe('PNG');
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}

/** The image sizes an .ico file holds (0 in the directory means 256). */
function icoSizes(file: string): number[] {
  const data = fs.readFileSync(file);
  expect(data.readUInt16LE(2)).toBe(1);
  return Array.from({ length: data.readUInt16LE(4) }, (_, i) => data[6 + 16 * i] || 256);
}

// @ts-expect-error: plain ESM build script without type declarations
const buildScript = (await import('../build/scripts/build.mjs')) as {
  buildAll(target?: string): Promise<string[]>;
  electronOutputs: { main: string; preload: string; trayIcons: string[] };
};

beforeAll(async () => {
  // Fresh bundles are what electron-builder packs (the global setup usually built them already).
  await buildScript.buildAll('all');
});

describe('electron-builder configuration', () => {
  it("matches electron-builder's own JSON schema", () => {
    const schema = JSON.parse(fs.readFileSync(require.resolve('app-builder-lib/scheme.json'), 'utf8')) as Json;
    const ajv = new Ajv({ allErrors: true, strict: false });
    const validate = ajv.compile(schema);
    const valid = validate(config);
    expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([]);
    expect(valid).toBe(true);
  });

  it("is read and accepted by electron-builder's own loader", async () => {
    const loader = require('app-builder-lib/out/util/config/config.js') as {
      getConfig(projectDir: string, configPath: string, fromOptions: null): Promise<Json>;
      validateConfiguration(config: Json, debugLogger: { isEnabled: boolean; add(): void }): Promise<void>;
    };
    const loaded = await loader.getConfig(root, CONFIG_FILE, null);
    await expect(loader.validateConfiguration(loaded, { isEnabled: false, add: () => {} })).resolves.toBeUndefined();
    expect(loaded.appId).toBe('org.campusbridge.appliance');
  });

  it('names the app and where its installers go', () => {
    expect(config.appId).toBe('org.campusbridge.appliance');
    expect(config.productName).toBe('CampusBridge');
    expect(config.directories).toEqual({ output: 'dist/installers', buildResources: 'build' });
  });

  it('builds AppImage and deb for Linux, NSIS for Windows, dmg for macOS', () => {
    expect(targets(config.linux)).toEqual(expect.arrayContaining(['AppImage', 'deb']));
    expect(targets(config.win)).toEqual(['nsis']);
    expect(targets(config.mac)).toEqual(['dmg']);
    expect(config.linux.category).toBe('Education');
    expect(config.linux.maintainer).toMatch(/<[^@\s]+@[^@\s]+>$/);
  });

  it("rebuilds sqlite3 for Electron's ABI and keeps its native addon outside the archive", () => {
    expect(config.npmRebuild).toBe(true);
    expect(config.asar).toBe(true);
    expect(config.asarUnpack).toContain('node_modules/sqlite3/**/*');
    const addon = 'node_modules/sqlite3/build/Release/node_sqlite3.node';
    expect(fs.existsSync(path.join(root, addon))).toBe(true);
    expect((config.asarUnpack as string[]).some((pattern) => minimatch(addon, pattern))).toBe(true);
    expect(packageJson.dependencies.sqlite3).toBeDefined();
  });

  it('refers only to icons that exist, of the sizes the platforms need', () => {
    const icons = [config.icon, config.linux?.icon, config.win?.icon, config.mac?.icon].filter(Boolean) as string[];
    expect(icons.length).toBeGreaterThanOrEqual(4);
    for (const icon of icons) expect(fs.existsSync(path.join(root, icon)), icon).toBe(true);
    for (const icon of icons.filter((file) => file.endsWith('.png'))) expect(pngSize(path.join(root, icon))).toEqual({ width: 512, height: 512 });
    expect(icoSizes(path.join(root, config.win.icon))).toContain(256);
  });

  it('packs the bundles that exist after the build, and no sources or installers', () => {
    const patterns = config.files as string[];
    const includes = patterns.filter((pattern) => !pattern.startsWith('!'));
    for (const pattern of includes) {
      const base = pattern.replace(/\/\*\*\/\*$/, '');
      expect(fs.existsSync(path.join(root, base)), `${pattern} matches something`).toBe(true);
    }
    const packed = (file: string) => includes.some((pattern) => minimatch(file, pattern));
    for (const file of [
      'package.json',
      'dist/electron/main.js',
      'dist/electron/preload.cjs',
      'dist/electron/tray.png',
      'dist/ui/index.html',
      'dist/server/cli.js',
    ]) {
      expect(packed(file), file).toBe(true);
    }
    for (const file of [
      'electron/main.ts',
      'server/appliance.ts',
      'tests/smoke.test.ts',
      'build/electron-builder.yml',
      'dist/installers/CampusBridge-0.1.0-linux-x86_64.AppImage',
    ]) {
      expect(packed(file), file).toBe(false);
    }
  });

  it("starts from package.json's main, the shell bundle, with its preload and tray icon beside it", () => {
    const { main, preload, trayIcons } = buildScript.electronOutputs;
    expect(path.join(root, packageJson.main)).toBe(main);
    expect(packageJson.main).toBe('dist/electron/main.js');
    const mainCode = fs.readFileSync(main, 'utf8');
    // electron stays external: the runtime provides it, the npm package only installs the binary.
    expect(mainCode).toMatch(/from "electron"/);
    expect(mainCode).not.toContain('Electron failed to install correctly');
    for (const besideMain of ['./preload.cjs', './tray.png']) {
      expect(mainCode).toContain(besideMain);
      expect(fs.existsSync(path.join(path.dirname(main), besideMain))).toBe(true);
    }
    expect(fs.readFileSync(preload, 'utf8')).toMatch(/require\("electron"\)/);
    for (const icon of trayIcons) expect(fs.existsSync(icon)).toBe(true);
  });

  it('is what `npm run dist` builds with, after building every bundle', () => {
    expect(packageJson.scripts.dist).toBe(`node build/scripts/build.mjs all --force && electron-builder --config ${CONFIG_FILE} --publish never`);
    expect(packageJson.scripts.desktop).toMatch(/^node build\/scripts\/build\.mjs all && electron \.$/);
    // `exec` so npm's signals and arguments reach the server on POSIX shells; on cmd.exe the first command serves (docs/decisions/running-as-a-service.md).
    expect(packageJson.scripts.start).toBe('node build/scripts/run.mjs start-on-windows || exec node build/scripts/run.mjs start');
  });
});

describe('installers workflow', () => {
  const workflow = readYaml(WORKFLOW_FILE);
  const job = workflow.jobs?.installers as Json;
  const steps = (job?.steps ?? []) as Json[];
  const run = (command: string) => steps.find((step) => step.run === command);

  it('builds on Linux, Windows and macOS with Node 20', () => {
    expect(job.strategy.matrix.os).toEqual(['ubuntu-latest', 'windows-latest', 'macos-latest']);
    expect(job.strategy['fail-fast']).toBe(false);
    expect(job['runs-on']).toBe('${{ matrix.os }}');
    const setupNode = steps.find((step) => String(step.uses).startsWith('actions/setup-node@'));
    expect(String(setupNode?.with?.['node-version'])).toBe('20');
  });

  it('installs, tests on Linux only, builds the installers and uploads them', () => {
    const order = ['npm ci', 'npm test', 'npm run dist'].map((command) => steps.indexOf(run(command)!));
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(run('npm test')?.if).toBe("runner.os == 'Linux'");
    expect(run('npm run dist')?.if).toBeUndefined();

    const upload = steps.find((step) => String(step.uses).startsWith('actions/upload-artifact@'));
    expect(steps.indexOf(upload!)).toBeGreaterThan(order[2]!);
    const paths = String(upload?.with?.path).trim().split('\n');
    expect(paths.every((line) => line.startsWith(`${config.directories.output}/`))).toBe(true);
    expect(paths.map((line) => path.extname(line))).toEqual(['.AppImage', '.deb', '.exe', '.dmg']);
    expect(upload?.with?.['if-no-files-found']).toBe('error');
  });

  it('reads only the repository', () => {
    expect(workflow.permissions).toEqual({ contents: 'read' });
    expect(Object.keys(workflow.on)).toEqual(expect.arrayContaining(['push', 'pull_request', 'workflow_dispatch']));
    expect(parse(fs.readFileSync(path.join(root, WORKFLOW_FILE), 'utf8'))).toEqual(workflow);
  });
});
