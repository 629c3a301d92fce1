import os from 'node:os';
import ipaddr from 'ipaddr.js';

export interface AddressSuggestion {
  url: string;
  /** Where the address comes from, in words: `Wi-Fi (192.168.1.20)`, `This computer's name`. */
  label: string;
}

/** `0.0.0.0`, `::` (or empty): a listener on every address of the computer. */
export function isWildcardHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  return bare === '' || bare === '0.0.0.0' || bare === '::';
}

/**
 * Addresses other computers of the campus may use to reach this one, for the first-run wizard
 * and the settings page, and only ones the listener on `listeningHost` answers on: listening on
 * every address (HOST=0.0.0.0), the machine's host name and each LAN address of its network
 * interfaces; on one LAN address, that one; on loopback (HOST=127.0.0.1, the default), none, since
 * no other computer reaches it (the pages say how to change that). Loopback and link-local
 * addresses are never offered: no other computer can use them.
 */
export function addressSuggestions(
  port: number,
  listeningHost: string,
  interfaces: NodeJS.Dict<os.NetworkInterfaceInfo[]> = os.networkInterfaces(),
  hostname = os.hostname(),
) {
  if (isLoopbackHost(listeningHost)) return [];
  const wildcard = isWildcardHost(listeningHost);
  const listening = wildcard
    ? null
    : ipaddr.isValid(listeningHost.replace(/^\[|\]$/g, ''))
      ? ipaddr.process(listeningHost.replace(/^\[|\]$/g, '')).toString()
      : null;
  const suggestions: AddressSuggestion[] = [];
  const host = hostname.toLowerCase();
  if (wildcard && host && host !== 'localhost') suggestions.push({ url: `http://${host}:${port}`, label: "This computer's name" });
  for (const [name, entries] of Object.entries(interfaces)) {
    for (const entry of entries ?? []) {
      if (entry.internal || !ipaddr.isValid(entry.address)) continue;
      const range = ipaddr.parse(entry.address).range();
      if (range === 'linkLocal' || range === 'loopback') continue;
      if (!wildcard && ipaddr.process(entry.address).toString() !== listening) continue;
      const shown = entry.family === 'IPv6' ? `[${entry.address}]` : entry.address;
      suggestions.push({ url: `http://${shown}:${port}`, label: `${name} (${entry.address})` });
    }
  }
  return suggestions;
}

/** What to do so the school's other computers reach the appliance, while it answers only this one. */
export const SERVE_NETWORK_HINT =
  "CampusBridge answers only on this computer (HOST=127.0.0.1, the default). To let the school's other computers and the LMS reach it, " +
  'start it with HOST=0.0.0.0 (docs/install.md, "Running as a service"), or put a reverse proxy in front of it.';

/** `localhost`, 127.0.0.0/8 or ::1: an address only this computer can open. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  return ipaddr.isValid(bare) && ipaddr.process(bare).range() === 'loopback';
}

/**
 * Why links would not work, or null, when the address links use (`public_url`) and the address the
 * appliance listens on disagree:
 * - it listens beyond this computer while `public_url` names loopback: other computers get links
 *   they cannot open;
 * - it listens on loopback only while `public_url` names another address: nothing answers there
 *   (unless a reverse proxy on this computer does: an `https` address or TRUST_PROXY says one is
 *   in front, and then nothing is said);
 * - it listens on one address while `public_url` names another IP address.
 * A host name is taken on trust when the listener answers on every address: DNS is the school's.
 */
export function linkWarning(publicUrl: string, listeningHost: string, options: { behindProxy?: boolean } = {}): string | null {
  const url = new URL(publicUrl);
  const linkHost = url.hostname.replace(/^\[|\]$/g, '');
  if (isLoopbackHost(listeningHost)) {
    if (isLoopbackHost(linkHost) || options.behindProxy || url.protocol === 'https:') return null;
    return (
      `Links in mail, invitations and launch URLs point at ${publicUrl}, but nothing answers there: CampusBridge listens on ${listeningHost} only, ` +
      'so other computers and the LMS cannot open them. Start it with HOST=0.0.0.0 to serve the school network, ' +
      "or set the address back to this computer's in Appliance → Settings."
    );
  }
  if (isLoopbackHost(linkHost)) {
    return (
      `Links in mail, invitations and launch URLs point at ${publicUrl}, which only this computer can open, ` +
      'while CampusBridge is reachable from the network. Set the address other computers use in Appliance → Settings.'
    );
  }
  const bareListener = listeningHost.replace(/^\[|\]$/g, '');
  if (!isWildcardHost(listeningHost) && !options.behindProxy && ipaddr.isValid(linkHost) && ipaddr.isValid(bareListener)) {
    if (ipaddr.process(linkHost).toString() !== ipaddr.process(bareListener).toString()) {
      return (
        `Links in mail, invitations and launch URLs point at ${publicUrl}, but CampusBridge listens on ${listeningHost} only: nothing answers there. ` +
        'Set the address it listens on (HOST) and the address in Appliance → Settings to the same one.'
      );
    }
  }
  return null;
}
