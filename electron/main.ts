// Electron's entry: hands the real Electron API to the shell, which does the rest (electron/shell.ts).
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, clipboard, dialog, ipcMain, Menu, safeStorage, shell, Tray } from 'electron';
import { launchShell } from './shell.js';

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
