import { ConfigError, type Config } from '../server/config.js';
import { ReadyTimeoutError, type PortFallback } from './appliance-start.js';

// What the desktop app tells its user about starting: a port that was taken, a start that failed.

export function portFallbackNotice(fallback: PortFallback, apiBaseUrl: string): { message: string; detail: string } {
  return {
    message: `Port ${fallback.requested} is in use by another program, so CampusBridge is using port ${fallback.used}.`,
    detail: `Systems on this computer reach the API at ${apiBaseUrl} until port ${fallback.requested} is free and CampusBridge restarts.`,
  };
}

export function describeStartFailure(error: Error, config: Config | null): string {
  const where = config ? `\n\nData folder: ${config.dataDir}` : '';
  if (error instanceof ReadyTimeoutError) return `The server was not ready after ${error.timeoutMs / 1000} s.${where}`;
  if (error instanceof ConfigError) return `The settings in the environment are not valid: ${error.message}`;
  return `${error.message}${where}`;
}
