import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { AppError } from '../errors.js';

// The address rules of every request the appliance makes to another computer: webhook deliveries,
// an LTI platform's key set, token and score endpoints, the SIS's OneRoster API. Only public
// addresses, unless the `outbound_private_hosts` setting names a loopback or campus target.

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * Whether the appliance may send to an address without the setting's leave: only global unicast. Loopback, private, link-local
 * (cloud metadata at 169.254.169.254 included), unique-local, carrier-grade NAT, reserved,
 * multicast, IPv6 outside 2000::/3, and the IPv6 forms that embed IPv4 (mapped, compatible, NAT64,
 * 6to4, Teredo) are refused.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  // ipaddr.js calls everything it has no name for `unicast`, IPv4-compatible ::a.b.c.d included:
  // an IPv6 receiver must also sit in 2000::/3, the only block of global unicast addresses.
  if (parsed instanceof ipaddr.IPv6 && !parsed.match(GLOBAL_UNICAST_V6)) return false;
  return parsed.range() === 'unicast';
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** All addresses of a host name, as the OS resolver returns them. Injectable for tests. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const found = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

/**
 * The `outbound_private_hosts` setting's value (docs/api.md#appliance-settings): `off`, `all`, or
 * host names, IP addresses and CIDR ranges separated by commas. It names the loopback or private
 * targets the appliance may send to (webhooks, LTI platforms, the SIS); every other private address stays refused.
 */
export type PrivateHosts = string;

export interface AddressRules {
  privateHosts: PrivateHosts;
  resolver?: Resolver;
}

/** How to lift a refusal: named in every `private_host` and `https_required` the setting could change. */
export const PRIVATE_HOSTS_HINT =
  'To let the appliance reach this computer or a campus host, the appliance operator adds it to the outbound_private_hosts setting ' +
  '(portal: Appliance → Settings; command line: settings set outbound_private_hosts <hosts>).';

const privateHost = (host: string) =>
  new AppError('private_host', `The host ${host} is, or resolves to, a loopback, private or link-local address. ${PRIVATE_HOSTS_HINT}`);

interface Allowance {
  all: boolean;
  names: Set<string>;
  ranges: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
}

function allowanceOf(privateHosts: PrivateHosts): Allowance {
  const value = privateHosts.trim().toLowerCase();
  const allowance: Allowance = { all: value === 'all', names: new Set(), ranges: [] };
  if (value === 'off' || value === 'all') return allowance;
  for (const entry of value.split(/[\s,]+/).filter(Boolean)) {
    if (entry.includes('/') && ipaddr.isValidCIDR(entry)) {
      const [range, bits] = ipaddr.parseCIDR(entry);
      allowance.ranges.push([range.kind() === 'ipv6' ? ipaddr.process(range.toString()) : range, bits]);
    } else if (ipaddr.isValid(entry)) {
      const address = ipaddr.process(entry);
      allowance.ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    } else {
      allowance.names.add(entry);
    }
  }
  return allowance;
}

/**
 * Whether the setting lets the appliance send to a non-public address of `host`. `all` covers loopback, private,
 * unique-local and carrier-grade NAT, but not link-local (169.254.0.0/16, where cloud metadata
 * answers, and fe80::/10): that must be listed by address or range to be reached.
 */
function allowedPrivate(allowance: Allowance, host: string, address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  if (allowance.ranges.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits))) return true;
  if (allowance.names.has(host.toLowerCase())) return true;
  return allowance.all && parsed.range() !== 'linkLocal';
}

const acceptable = (allowance: Allowance, host: string, address: string) => isPublicAddress(address) || allowedPrivate(allowance, host, address);

/**
 * Resolves the URL's host and checks every address it has. The one returned is the address the
 * connection must use (pinned), so a second lookup cannot swap in another (DNS rebinding).
 * Loopback and private addresses pass only as `privateHosts` allows.
 */
export async function resolveOutboundAddress(url: URL, options: AddressRules): Promise<ResolvedAddress> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const allowance = allowanceOf(options.privateHosts);
  if (net.isIP(host)) {
    if (!acceptable(allowance, host, host)) throw privateHost(host);
    return { address: host, family: net.isIP(host) === 6 ? 6 : 4 };
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await (options.resolver ?? systemResolver)(host);
  } catch {
    throw new AppError('validation_error', `The host ${host} could not be resolved.`, { details: [{ path: 'url', message: 'Host not found.' }] });
  }
  if (addresses.length === 0) {
    throw new AppError('validation_error', `The host ${host} could not be resolved.`, { details: [{ path: 'url', message: 'Host not found.' }] });
  }
  if (addresses.some((entry) => !acceptable(allowance, host, entry.address))) throw privateHost(host);
  return addresses[0]!;
}

/**
 * `http://` is accepted only toward a target the setting allows as private (every address of it
 * loopback or private and allowed; with `all`, any host, as before the setting existed).
 */
export function plainHttpAllowed(privateHosts: PrivateHosts, host: string, address: ResolvedAddress): boolean {
  const allowance = allowanceOf(privateHosts);
  if (allowance.all) return true;
  const bare = host.replace(/^\[|\]$/g, '');
  return !isPublicAddress(address.address) && allowedPrivate(allowance, bare, address.address);
}

const httpsRequired = () => new AppError('https_required', `Webhook endpoints must use https://. ${PRIVATE_HOSTS_HINT}`);

/** URL rules at create and update: https (but toward an allowed private host) and a public or allowed host. */
export async function checkEndpointUrl(raw: string, options: AddressRules): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('validation_error', 'The url is not a valid absolute URL.', { details: [{ path: 'url', message: 'Invalid URL.' }] });
  }
  // Before any lookup: nothing can make another scheme acceptable, nor http:// while the setting is off.
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && options.privateHosts.trim().toLowerCase() !== 'off')) throw httpsRequired();
  if (url.username || url.password) {
    throw new AppError('validation_error', 'The url must not carry credentials.', {
      details: [{ path: 'url', message: 'No user:password@ in webhook URLs.' }],
    });
  }
  const address = await resolveOutboundAddress(url, options);
  if (url.protocol === 'http:' && !plainHttpAllowed(options.privateHosts, url.hostname, address)) throw httpsRequired();
  return url;
}
