import os from 'node:os';
import ipaddr from 'ipaddr.js';

export interface AddressSuggestion {
  url: string;
  /** Where the address comes from, in words: `Wi-Fi (192.168.1.20)`, `This computer's name`. */
  label: string;
}

/**
 * Addresses other computers of the campus may use to reach this one, for the first-run wizard
 * and the settings page: the machine's host name, then each LAN address of its network
 * interfaces. Loopback and link-local addresses are left out: no other computer can use them.
 */
export function addressSuggestions(port: number, interfaces: NodeJS.Dict<os.NetworkInterfaceInfo[]> = os.networkInterfaces(), hostname = os.hostname()) {
  const suggestions: AddressSuggestion[] = [];
  const host = hostname.toLowerCase();
  if (host && host !== 'localhost') suggestions.push({ url: `http://${host}:${port}`, label: "This computer's name" });
  for (const [name, entries] of Object.entries(interfaces)) {
    for (const entry of entries ?? []) {
      if (entry.internal || !ipaddr.isValid(entry.address)) continue;
      const range = ipaddr.parse(entry.address).range();
      if (range === 'linkLocal' || range === 'loopback') continue;
      const shown = entry.family === 'IPv6' ? `[${entry.address}]` : entry.address;
      suggestions.push({ url: `http://${shown}:${port}`, label: `${name} (${entry.address})` });
    }
  }
  return suggestions;
}

/** `localhost`, 127.0.0.0/8 or ::1: an address only this computer can open. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  return ipaddr.isValid(bare) && ipaddr.process(bare).range() === 'loopback';
}

/**
 * Why links would not work for other computers, or null: the appliance is reachable beyond this
 * computer (it listens on another address than loopback) while `public_url` names loopback.
 */
export function linkWarning(publicUrl: string, listeningHost: string): string | null {
  if (isLoopbackHost(listeningHost)) return null;
  if (!isLoopbackHost(new URL(publicUrl).hostname)) return null;
  return (
    `Links in mail, invitations and launch URLs point at ${publicUrl}, which only this computer can open, ` +
    'while CampusBridge is reachable from the network. Set the address other computers use in Appliance → Settings.'
  );
}
