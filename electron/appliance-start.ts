import type { Appliance, StartOptions } from '../server/appliance.js';

export type StartFunction = (options: StartOptions) => Promise<Appliance>;

export class ReadyTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the server was not ready after ${timeoutMs / 1000} s`);
  }
}

function isAddressInUse(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === 'EADDRINUSE';
}

/**
 * The ports to try, in order: the configured one, the next few (so the address stays
 * predictable), then any free port the system gives.
 */
export function candidatePorts(configured: number, nextPorts: number): number[] {
  if (configured === 0) return [0];
  const next = Array.from({ length: nextPorts }, (_, i) => configured + 1 + i).filter((port) => port <= 65535);
  return [configured, ...next, 0];
}

export interface PortFallback {
  requested: number;
  used: number;
}

/**
 * Starts the appliance on the configured port or, when another program holds it, on the next
 * free candidate. `onPortTaken` hears about each port skipped.
 */
export async function startOnFreePort(
  start: StartFunction,
  options: StartOptions,
  nextPorts: number,
  onPortTaken: (port: number) => void,
): Promise<{ appliance: Appliance; fallback: PortFallback | null }> {
  const requested = options.config.port;
  const ports = candidatePorts(requested, nextPorts);
  for (const [index, port] of ports.entries()) {
    try {
      const appliance = await start({ ...options, config: { ...options.config, port } });
      return { appliance, fallback: appliance.port === requested || requested === 0 ? null : { requested, used: appliance.port } };
    } catch (error) {
      if (!isAddressInUse(error) || index === ports.length - 1) throw error;
      onPortTaken(port);
    }
  }
  throw new Error('no port to try'); // unreachable: the last candidate either starts or throws
}

/** Settles like `work`, or rejects with `onTimeout()` once `timeoutMs` has passed. */
export async function withTimeout<T>(work: Promise<T>, timeoutMs: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The address this computer reaches the server at: a wildcard listen address is reached through loopback. */
export function localOrigin(host: string, port: number): string {
  if (host === '0.0.0.0' || host === '') return `http://127.0.0.1:${port}`;
  if (host === '::' || host === '[::]') return `http://[::1]:${port}`;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
