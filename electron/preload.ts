import { contextBridge, ipcRenderer } from 'electron';
import { BRIDGE_NAME, COPY_API_BASE_URL_CHANNEL, versionFromArguments, type DesktopBridge } from './bridge.js';

// Runs in the sandboxed portal renderer: exposes the one typed bridge and nothing else.
const bridge: DesktopBridge = {
  version: versionFromArguments(process.argv),
  copyApiBaseUrl: () => ipcRenderer.invoke(COPY_API_BASE_URL_CHANNEL) as Promise<string>,
};

contextBridge.exposeInMainWorld(BRIDGE_NAME, bridge);
