// The one bridge between the portal page and the desktop shell, shared by main and preload.

/** What the portal finds at `window.campusBridgeDesktop` when it runs inside the desktop app. */
export interface DesktopBridge {
  /** The desktop app's version. */
  readonly version: string;
  /** Puts the API base URL (`<origin>/v1`) on the clipboard and returns it. */
  copyApiBaseUrl(): Promise<string>;
}

export const BRIDGE_NAME = 'campusBridgeDesktop';
export const COPY_API_BASE_URL_CHANNEL = 'campusbridge:copy-api-base-url';

// A sandboxed preload cannot read package.json; main hands the version over on the renderer's command line.
const VERSION_ARG = '--campusbridge-version=';

export function versionArgument(version: string): string {
  return `${VERSION_ARG}${version}`;
}

export function versionFromArguments(argv: readonly string[]): string {
  return argv.find((arg) => arg.startsWith(VERSION_ARG))?.slice(VERSION_ARG.length) ?? '';
}
