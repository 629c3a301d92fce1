// Electron's entry: hands the real Electron API to the shell, which does the rest (electron/shell.ts),
// or, started with `--cli <command…>`, runs one operator command instead (electron/cli-mode.ts).
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, clipboard, dialog, ipcMain, Menu, safeStorage, shell, Tray } from 'electron';
import { cliArguments, launchCliMode } from './cli-mode.js';
import { launchShell } from './shell.js';

const cliArgs = cliArguments(process.argv);
if (cliArgs) {
  // Not awaited, as below: the command waits for `ready`, then exits the app with its code.
  void launchCliMode({ app, safeStorage }, cliArgs, {
    env: process.env,
    platform: process.platform,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  });
} else {
  // Not awaited: `ready` comes only after this module has run, and launchShell settles its own promise.
  void launchShell(
    { app, BrowserWindow, Tray, Menu, ipcMain, shell, clipboard, safeStorage, dialog },
    {
      env: process.env,
      platform: process.platform,
      argv: process.argv,
      execPath: process.execPath,
      preloadPath: fileURLToPath(new URL('./preload.cjs', import.meta.url)),
      trayIconPath: fileURLToPath(new URL('./tray.png', import.meta.url)),
    },
  );
}
