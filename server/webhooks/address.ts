import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { AppError } from '../errors.js';

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * Whether an address may receive webhooks: only global unicast. Loopback, private, link-local
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

const privateHost = (host: string) => new AppError('private_host', `The host ${host} is, or resolves to, a loopback, private or link-local address.`);

/**
 * Resolves the URL's host and checks every address it has. The one returned is the address the
 * connection must use (pinned), so a second lookup cannot swap in another (DNS rebinding).
 * With `allowPrivate` (WEBHOOK_ALLOW_PRIVATE_HOSTS=1) any address is accepted.
 */
export async function resolveDeliveryAddress(url: URL, options: { allowPrivate: boolean; resolver?: Resolver }): Promise<ResolvedAddress> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host)) {
    if (!options.allowPrivate && !isPublicAddress(host)) throw privateHost(host);
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
  if (!options.allowPrivate && addresses.some((entry) => !isPublicAddress(entry.address))) throw privateHost(host);
  return addresses[0]!;
}

/** URL rules at create and update: https (unless private hosts are allowed) and a public host. */
export async function checkEndpointUrl(raw: string, options: { allowPrivate: boolean; resolver?: Resolver }): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('validation_error', 'The url is not a valid absolute URL.', { details: [{ path: 'url', message: 'Invalid URL.' }] });
  }
  if (url.protocol !== 'https:' && !(options.allowPrivate && url.protocol === 'http:')) {
    throw new AppError('https_required', 'Webhook endpoints must use https://.');
  }
  if (url.username || url.password) {
    throw new AppError('validation_error', 'The url must not carry credentials.', {
      details: [{ path: 'url', message: 'No user:password@ in webhook URLs.' }],
    });
  }
  await resolveDeliveryAddress(url, options);
  return url;
}
