// Lint for the whole repository, run by `npm test`: typescript-eslint's recommended rules, and
// the server's layering as an import-boundary rule (docs/architecture.md#layers; the layers
// themselves are in build/layers.mjs). Formatting is prettier's (`npm run format:check`), so no
// stylistic rule lives here.
import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import tseslint from 'typescript-eslint';
import { GROUPS, LAYERS } from './build/layers.mjs';

/**
 * Elements for eslint-plugin-boundaries, one per layer and kind of path. Files named for a layer come
 * first: the first element that matches a file classifies it, so `server/settings/values.ts` is
 * foundation although `server/settings/` is a services layer.
 */
const elementsOf = (layers) => {
  const named = (layer, folders) => layer.paths.filter((path) => path.endsWith('/') === folders).map((path) => (folders ? `${path}**` : path));
  return [false, true].flatMap((folders) =>
    layers.filter((layer) => named(layer, folders).length > 0).map((layer) => ({ type: layer.layer, pattern: named(layer, folders), mode: 'full' })),
  );
};

/** Each layer may import what its `imports` name (a group stands for its layers), and its `typeImports` by `import type` only. */
const policiesOf = (layers) => {
  const types = (names) => ({ types: { anyOf: names.flatMap((name) => GROUPS[name] ?? [name]) } });
  return layers.flatMap(({ layer, imports, typeImports = [] }) => [
    { from: { element: { type: layer } }, allow: { to: { element: types(imports) } } },
    ...(typeImports.length > 0 ? [{ from: { element: { type: layer } }, allow: { to: { element: types(typeImports) }, dependency: { kind: 'type' } } }] : []),
  ]);
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'tests/artifacts/**', 'ui/dist/**', 'build/icons/**', 'server/client/generated/**', 'ui/src/api/generated/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-control-regex': 'off',
    },
  },
  {
    files: ['server/**/*.ts', 'ui/src/**/*.{ts,tsx}'],
    ignores: ['server/**/*.test.ts'],
    plugins: { boundaries },
    settings: {
      'boundaries/elements': elementsOf(LAYERS),
      'import/resolver': { typescript: { project: 'tsconfig.json' } },
      // `mode: 'full'` matches a pattern against the whole path, as single files (errors.ts, context.ts)
      // need; v7's `partialMatch: false`, its suggested replacement, does not match them, so the
      // deprecation notice is turned off.
      'boundaries/legacy-warnings': false,
    },
    rules: {
      'boundaries/dependencies': ['error', { default: 'disallow', policies: policiesOf(LAYERS) }],
      'boundaries/no-unknown-files': 'error',
    },
  },
  {
    files: ['**/*.test.ts', 'tests/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        performance: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
  },
);
