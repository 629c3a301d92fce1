import { migrateTo } from '../commands/appliance/migrate-to.js';
import type { RegisterCommands } from './context.js';

/** `migrate-to <postgres url>`: the move from SQLite to PostgreSQL, docs/scale-out.md#moving-up-from-one-computer. */
export const registerMigrateCommands: RegisterCommands = (program, cli) => {
  program
    .command('migrate-to <postgres_url>')
    .description(
      "copy DATA_DIR's SQLite database into an empty PostgreSQL database and print {tables, rows}; CampusBridge must not be running. " +
        'Then set DATABASE_URL to that URL for every process and keep DATA_DIR/master.key: the data stays sealed with it. ' +
        'The SQLite file is left as it was',
    )
    .action(async (postgresUrl: string) => {
      cli.print(await migrateTo({ databaseFile: cli.config().databaseFile, masterKeyStore: cli.io.masterKeyStore }, postgresUrl));
    });
};
