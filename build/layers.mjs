// The server's layers and the portal UI beside them (docs/architecture.md#layers), as one table:
// eslint.config.js turns it into eslint-plugin-boundaries' elements and policies, and
// tests/lint-boundaries.test.ts fails when the table in docs/architecture.md says otherwise.

/** Names that stand for several layers in `imports`: the edge (top first) and the services (top first). */
export const GROUPS = {
  edge: ['routes', 'http', 'portal'],
  services: ['events', 'webhooks', 'mail', 'files', 'settings', 'outbound'],
};

/**
 * From the top down. `paths` are from the repository's root: a folder ends in `/` and holds every
 * file under it, and a file named here belongs to its layer even inside another layer's folder.
 * A layer may import the layers (or groups) in `imports`, and those in `typeImports` with
 * `import type` only, which TypeScript erases. A server file in no layer fails the lint.
 */
export const LAYERS = [
  {
    layer: 'entry',
    paths: ['server/app.ts', 'server/appliance.ts', 'server/main.ts', 'server/gc-tuning.ts'],
    imports: ['entry', 'cli', 'edge', 'jobs', 'presenters', 'commands', 'services', 'data', 'foundation'],
  },
  { layer: 'cli', paths: ['server/cli/'], imports: ['cli', 'jobs', 'presenters', 'commands', 'services', 'data', 'foundation'] },
  {
    layer: 'routes',
    group: 'edge',
    paths: ['server/routes/'],
    imports: ['routes', 'http', 'portal', 'presenters', 'commands', 'services', 'data', 'foundation'],
  },
  { layer: 'http', group: 'edge', paths: ['server/http/'], imports: ['http', 'portal', 'presenters', 'commands', 'services', 'data', 'foundation'] },
  { layer: 'portal', group: 'edge', paths: ['server/portal/'], imports: ['portal', 'presenters', 'commands', 'services', 'data', 'foundation'] },
  { layer: 'jobs', paths: ['server/jobs/'], imports: ['jobs', 'commands', 'services', 'data', 'foundation'] },
  // Presenters turn what commands return into JSON, so they may name the commands' result types.
  { layer: 'presenters', paths: ['server/presenters/'], imports: ['presenters', 'commands', 'services', 'data', 'foundation'] },
  { layer: 'commands', paths: ['server/commands/'], imports: ['commands', 'services', 'data', 'foundation'] },
  {
    layer: 'events',
    group: 'services',
    paths: ['server/events/'],
    imports: ['events', 'webhooks', 'mail', 'files', 'settings', 'outbound', 'data', 'foundation'],
  },
  {
    layer: 'webhooks',
    group: 'services',
    paths: ['server/webhooks/'],
    imports: ['webhooks', 'mail', 'files', 'settings', 'outbound', 'data', 'foundation'],
  },
  { layer: 'mail', group: 'services', paths: ['server/mail/'], imports: ['mail', 'files', 'settings', 'outbound', 'data', 'foundation'] },
  { layer: 'files', group: 'services', paths: ['server/files/'], imports: ['files', 'settings', 'outbound', 'data', 'foundation'] },
  { layer: 'settings', group: 'services', paths: ['server/settings/'], imports: ['settings', 'outbound', 'data', 'foundation'] },
  { layer: 'outbound', group: 'services', paths: ['server/outbound/'], imports: ['outbound', 'data', 'foundation'] },
  { layer: 'data', paths: ['server/db/', 'server/models/'], imports: ['data', 'foundation'] },
  {
    layer: 'foundation',
    paths: [
      'server/crypto/',
      'server/validation/',
      'server/policies/',
      'server/settings/values.ts',
      'server/errors.ts',
      'server/ids.ts',
      'server/logger.ts',
      'server/config.ts',
      'server/paths.ts',
      'server/context.ts',
      'server/html.ts',
    ],
    imports: ['foundation'],
    typeImports: ['data'],
  },
  // The typed client is copied into integrators' programs: no server code may come with it.
  { layer: 'client', paths: ['server/client/'], imports: ['client'] },
  // The portal reads the server's schemas and limits as types, and the learner side the /v1
  // document's generated types (server/client/generated), so no server code reaches the browser.
  { layer: 'ui', paths: ['ui/src/'], imports: ['ui'], typeImports: ['routes', 'commands', 'webhooks', 'client'] },
];
