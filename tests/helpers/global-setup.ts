import type { TestProject } from 'vitest/node';
import { migrateSqliteTemplate } from './templates.js';

type Template = Awaited<ReturnType<typeof migrateSqliteTemplate>>;

/** Shared by every project's run of this setup in the one vitest process, removed after the last. */
const shared = globalThis as typeof globalThis & { campusbridgeSetup?: { ready: Promise<Template>; users: number } };

// The CLI and process tests run the real bundles, so build them once before any test starts; and
// migrate the SQLite template every fresh test appliance starts from (tests/helpers/templates.ts).
// Every project runs its global setups, so the work is done once and shared.
export default async function setup(project: TestProject): Promise<() => void> {
  shared.campusbridgeSetup ??= {
    ready: (async () => {
      // @ts-expect-error: plain ESM build script without type declarations
      const { buildAll } = await import('../../build/scripts/build.mjs');
      await buildAll('all');
      return migrateSqliteTemplate();
    })(),
    users: 0,
  };
  const state = shared.campusbridgeSetup;
  state.users += 1;
  const template = await state.ready;
  project.provide('sqliteTemplate', template.file);
  return () => {
    state.users -= 1;
    if (state.users === 0) template.remove();
  };
}
