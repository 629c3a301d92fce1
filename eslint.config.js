// Lint for the whole repository, run by `npm test`: typescript-eslint's recommended rules, and
// the server's layering as an import-boundary rule (docs/architecture.md#layers). Formatting is
// prettier's (`npm run format:check`), so no stylistic rule lives here.
import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import tseslint from 'typescript-eslint';

/**
 * The server's layers, from the edge down. A layer may import the layers listed for it and the
 * foundation; nothing imports upwards. `http`, `routes` and `portal` are the edge: only they (and
 * the process entry points) know about requests.
 */
const SERVER_LAYERS = [
  { type: 'entry', pattern: 'server/{app,appliance,main,cli}.ts', mode: 'full' },
  { type: 'cli', pattern: 'server/cli' },
  { type: 'edge', pattern: ['server/http', 'server/routes', 'server/portal'] },
  { type: 'jobs', pattern: 'server/jobs' },
  { type: 'presenters', pattern: 'server/presenters' },
  { type: 'commands', pattern: 'server/commands' },
  { type: 'services', pattern: ['server/webhooks', 'server/mail', 'server/events', 'server/files', 'server/outbound'] },
  { type: 'data', pattern: ['server/db', 'server/models'] },
  // The typed client (server/client/) is for integrators' programs: it may import only itself.
  { type: 'client', pattern: 'server/client' },
  {
    type: 'foundation',
    pattern: ['server/crypto/**', 'server/validation/**', 'server/policies/**', 'server/{errors,ids,logger,config,paths,context,html}.ts'],
    mode: 'full',
  },
];

const allow = (from, to) => ({ from: { element: { type: from } }, allow: { to: { element: { types: { anyOf: to } } } } });

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'tests/artifacts/**', 'ui/dist/**', 'build/icons/**', 'server/client/generated/**'] },
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
    files: ['server/**/*.ts'],
    ignores: ['server/**/*.test.ts'],
    plugins: { boundaries },
    settings: {
      'boundaries/elements': SERVER_LAYERS,
      'import/resolver': { typescript: { project: 'tsconfig.json' } },
      // `mode: 'full'` classifies single files (errors.ts, context.ts); v7's `partialMatch: false`, its
      // suggested replacement, does not match them, so the deprecation notice is turned off.
      'boundaries/legacy-warnings': false,
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          policies: [
            allow('entry', ['entry', 'cli', 'edge', 'jobs', 'presenters', 'commands', 'services', 'data', 'foundation']),
            allow('cli', ['cli', 'jobs', 'commands', 'presenters', 'services', 'data', 'foundation']),
            allow('edge', ['edge', 'presenters', 'commands', 'services', 'data', 'foundation']),
            allow('jobs', ['jobs', 'commands', 'services', 'data', 'foundation']),
            // Presenters turn what commands return into JSON, so they may name the commands' result types.
            allow('presenters', ['presenters', 'commands', 'services', 'data', 'foundation']),
            allow('commands', ['commands', 'services', 'data', 'foundation']),
            allow('services', ['services', 'data', 'foundation']),
            allow('data', ['data', 'foundation']),
            allow('foundation', ['foundation', 'data']),
            allow('client', ['client']),
          ],
        },
      ],
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
