import { readApplianceSettings, writeApplianceSetting } from '../settings/appliance-settings.js';
import type { RegisterCommands } from './context.js';

/** `settings get` and `settings set <name> <value>` (docs/api.md#appliance-settings). */
export const registerSettingsCommands: RegisterCommands = (program, cli) => {
  const settings = program
    .command('settings')
    .description('appliance settings: public_url, outbound_private_hosts (old name webhook_private_hosts; an environment variable of the same meaning wins)');
  settings
    .command('get')
    .description('every setting with its value and where it comes from (env, setting or default)')
    .action(async () => {
      const settings = await readApplianceSettings(await cli.database(), cli.config());
      // The setting's old name stays in the answer, with the same value, for scripts that read it.
      cli.print({ ...settings, webhook_private_hosts: settings.outbound_private_hosts });
    });
  settings
    .command('set <name> <value>')
    .description('store a setting; `default` forgets the stored value. A running appliance uses it at once')
    .action(async (name: string, value: string) => {
      const db = await cli.database();
      const setting = await writeApplianceSetting(db, name, value);
      cli.print((await readApplianceSettings(db, cli.config()))[setting]);
    });
};
