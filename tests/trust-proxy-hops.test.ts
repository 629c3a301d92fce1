// @tier unit
// TRUST_PROXY as a hop count (docs/decisions/settings.md): Express alone trusts the nearest N hops
// whatever they are, so a client connecting directly from the internet could write its own
// X-Forwarded-For and be believed. A hop is believed only from this computer or a private network.
import { describe, expect, it } from 'vitest';
import { trustProxySetting } from '../server/http/trust-proxy.js';

describe('TRUST_PROXY hop count', () => {
  const trust = trustProxySetting(1) as (address: string, hop: number) => boolean;

  it('believes the nearest hop when it is this computer or a private network', () => {
    for (const proxy of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '10.20.0.5', '192.168.1.2', '172.16.0.9', 'fd00::5', 'fe80::1']) {
      expect(trust(proxy, 0), proxy).toBe(true);
    }
  });

  it('does not believe a client that connects directly from a public address, nor hops past the count', () => {
    for (const client of ['203.0.113.7', '198.51.100.9', '2001:db8::7', '8.8.8.8', 'not an address']) expect(trust(client, 0), client).toBe(false);
    expect(trust('10.20.0.5', 1)).toBe(false);
    const two = trustProxySetting(2) as (address: string, hop: number) => boolean;
    expect(two('10.20.0.5', 1)).toBe(true);
    expect(two('203.0.113.7', 1)).toBe(false);
  });

  it('passes addresses, ranges and off through to Express unchanged', () => {
    expect(trustProxySetting(false)).toBe(false);
    expect(trustProxySetting(['loopback', '10.0.0.0/8'])).toEqual(['loopback', '10.0.0.0/8']);
  });
});
