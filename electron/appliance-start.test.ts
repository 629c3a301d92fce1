// @tier integration
// @databases sqlite: the desktop shell starting and stopping an appliance; the queries under it are the API's
import { describe, expect, it } from 'vitest';
import type { Appliance, StartOptions } from '../server/appliance.js';
import { loadConfig } from '../server/config.js';
import { candidatePorts, localOrigin, ReadyTimeoutError, startOnFreePort, withTimeout } from './appliance-start.js';

describe('candidatePorts', () => {
  it('tries the configured port, the next ones, then any free port', () => {
    expect(candidatePorts(4780, 3)).toEqual([4780, 4781, 4782, 4783, 0]);
    expect(candidatePorts(4780, 0)).toEqual([4780, 0]);
  });

  it('never goes past the last port, and port 0 is tried once', () => {
    expect(candidatePorts(65534, 4)).toEqual([65534, 65535, 0]);
    expect(candidatePorts(0, 4)).toEqual([0]);
  });
});

describe('startOnFreePort', () => {
  const config = loadConfig({ HOST: '127.0.0.1', PORT: '4780' }, { dataDir: '/nowhere' });
  const inUse = () => Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
  /** A start that fails for the ports in `taken` and otherwise "listens" where it was asked (0 → 50123). */
  function fakeStart(taken: number[], tried: number[]) {
    return async (options: StartOptions) => {
      tried.push(options.config.port);
      if (taken.includes(options.config.port)) throw inUse();
      return { port: options.config.port || 50123 } as Appliance;
    };
  }

  it('reports no fallback when the configured port is free', async () => {
    const tried: number[] = [];
    const result = await startOnFreePort(fakeStart([], tried), { config }, 3, () => {});
    expect(tried).toEqual([4780]);
    expect(result.fallback).toBeNull();
  });

  it('moves on only when the port is in use, naming each port skipped', async () => {
    const tried: number[] = [];
    const skipped: number[] = [];
    const result = await startOnFreePort(fakeStart([4780, 4781], tried), { config }, 3, (port) => skipped.push(port));
    expect(tried).toEqual([4780, 4781, 4782]);
    expect(skipped).toEqual([4780, 4781]);
    expect(result.fallback).toEqual({ requested: 4780, used: 4782 });
  });

  it('ends on a system-chosen port', async () => {
    const tried: number[] = [];
    const result = await startOnFreePort(fakeStart([4780, 4781], tried), { config }, 1, () => {});
    expect(tried).toEqual([4780, 4781, 0]);
    expect(result.fallback).toEqual({ requested: 4780, used: 50123 });
  });

  it('does not retry other failures', async () => {
    let attempts = 0;
    const failing = async () => {
      attempts++;
      throw Object.assign(new Error('listen EACCES'), { code: 'EACCES' });
    };
    await expect(startOnFreePort(failing, { config }, 3, () => {})).rejects.toThrow('EACCES');
    expect(attempts).toBe(1);
  });
});

describe('withTimeout', () => {
  it('passes on what settles in time', async () => {
    await expect(withTimeout(Promise.resolve(7), 1000, () => new ReadyTimeoutError(1000))).resolves.toBe(7);
    await expect(withTimeout(Promise.reject(new Error('boom')), 1000, () => new ReadyTimeoutError(1000))).rejects.toThrow('boom');
  });

  it('rejects with the timeout error when the work takes too long', async () => {
    await expect(withTimeout(new Promise(() => {}), 20, () => new ReadyTimeoutError(20))).rejects.toBeInstanceOf(ReadyTimeoutError);
  });
});

describe('localOrigin', () => {
  it('reaches a wildcard listen address through loopback', () => {
    expect(localOrigin('127.0.0.1', 4780)).toBe('http://127.0.0.1:4780');
    expect(localOrigin('0.0.0.0', 4780)).toBe('http://127.0.0.1:4780');
    expect(localOrigin('::', 4780)).toBe('http://[::1]:4780');
    expect(localOrigin('::1', 4780)).toBe('http://[::1]:4780');
    expect(localOrigin('192.168.1.20', 4780)).toBe('http://192.168.1.20:4780');
  });
});
