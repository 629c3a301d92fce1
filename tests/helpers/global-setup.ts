// The CLI and process tests run the real bundles, so build them once before any test starts.
export default async function setup(): Promise<void> {
  // @ts-expect-error: plain ESM build script without type declarations
  const { buildAll } = await import('../../build/scripts/build.mjs');
  await buildAll('all');
}
