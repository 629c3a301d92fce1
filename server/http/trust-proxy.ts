import ipaddr from 'ipaddr.js';
import type { Config } from '../config.js';

/** Where a reverse proxy in front of the appliance can stand: this computer or the school's own network. */
const PROXY_RANGES = new Set(['loopback', 'private', 'linkLocal', 'uniqueLocal']);

function onLocalNetwork(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return PROXY_RANGES.has(parsed.range());
}

/**
 * Express's `trust proxy` for TRUST_PROXY. Addresses and ranges are Express's own list. A hop
 * count alone would believe `X-Forwarded-For` from anyone who connects directly (Express trusts
 * the nearest N hops whatever they are), so a hop is believed only when it comes from this
 * computer or a private network, where the school's proxy stands: a client on the internet that
 * writes its own header is judged by its connection.
 */
export function trustProxySetting(trustProxy: Config['trustProxy']): false | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trustProxy !== 'number') return trustProxy;
  const hops = trustProxy;
  return (address, hop) => hop < hops && onLocalNetwork(address);
}
