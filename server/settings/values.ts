import ipaddr from 'ipaddr.js';
import { AppError } from '../errors.js';

/** The values the appliance settings accept, parsed into one form (also for their environment variables). */

const invalid = (name: 'public_url' | 'outbound_private_hosts', message: string) =>
  new AppError('validation_error', `${name}: ${message}`, { details: [{ path: name, message }] });

export const UNSPECIFIED_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

/** An `http(s)://host[:port]` origin, without a path, query, user or trailing slash. */
export function parsePublicUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw invalid('public_url', 'An address such as http://campusbridge.school.lan:4780 or https://cb.school.example.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('public_url', 'It must start with http:// or https://.');
  if (url.username || url.password) throw invalid('public_url', 'It must not carry a user name or password.');
  if (url.pathname !== '/' || url.search || url.hash) throw invalid('public_url', 'Only the scheme, host and port: no path, query or #.');
  if (UNSPECIFIED_HOSTS.has(url.hostname))
    throw invalid('public_url', `${url.hostname} is not an address other computers can use; give this computer's name or LAN address.`);
  return url.origin;
}

/**
 * `off`, `all`, or host names, IP addresses and CIDR ranges separated by commas; returned in one
 * form (lower case, `, ` between entries, repeats dropped).
 */
export function parsePrivateHosts(raw: string): string {
  const value = raw.trim().toLowerCase();
  if (value === 'off' || value === 'all') return value;
  const entries = [...new Set(value.split(/[\s,]+/).filter(Boolean))];
  if (!entries.length) throw invalid('outbound_private_hosts', '"off", "all", or host names, IP addresses and CIDR ranges separated by commas.');
  for (const entry of entries) {
    if (entry.includes('/')) {
      if (!ipaddr.isValidCIDR(entry)) throw invalid('outbound_private_hosts', `${entry} is not a CIDR range such as 10.20.0.0/16.`);
    } else if (!ipaddr.isValid(entry) && !/^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/.test(entry)) {
      throw invalid('outbound_private_hosts', `${entry} is not a host name, IP address or CIDR range.`);
    }
  }
  return entries.join(', ');
}
