// @tier unit
// The SSRF rules of webhook URLs (docs/api.md#webhooks-and-events). Nothing here opens a socket or asks DNS: the
// classifier is a pure function, IP literals never reach a resolver, and names are resolved by an
// injected resolver. The system resolver is replaced by a tripwire for the whole file.
import dns from 'node:dns';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AppError } from '../server/errors.js';
import { checkEndpointUrl, isPublicAddress, resolveOutboundAddress, type ResolvedAddress, type Resolver } from '../server/outbound/address.js';

/** A resolver that fails the test when asked: proves a URL was judged without DNS. */
const tripwire: Resolver = async (hostname) => {
  throw new Error(`no DNS query expected, got one for ${hostname}`);
};
const fixed =
  (...addresses: ResolvedAddress[]): Resolver =>
  async () =>
    addresses;

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'accepted';
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
}

let systemLookup: ReturnType<typeof vi.spyOn>;
beforeAll(() => {
  systemLookup = vi.spyOn(dns.promises, 'lookup').mockRejectedValue(new Error('the system resolver must not be used in these tests'));
});
afterAll(() => {
  // Only the canary below reached the (stubbed) system resolver.
  expect(systemLookup.mock.calls.every((call: unknown[]) => call[0] === 'localhost')).toBe(true);
  systemLookup.mockRestore();
});

it('canary: the system resolver is stubbed in this file', async () => {
  // Were the stub not in the path, /etc/hosts would answer 127.0.0.1 and this would be private_host.
  systemLookup.mockResolvedValueOnce([{ address: '8.8.8.8', family: 4 }] as never);
  expect(await codeOf(checkEndpointUrl('https://localhost/hook', { privateHosts: 'off' }))).toBe('accepted');
  expect(systemLookup).toHaveBeenCalledTimes(1);
});

describe('isPublicAddress', () => {
  const refused: Record<string, string[]> = {
    'IPv4 private 10/8': ['10.0.0.0', '10.0.0.1', '10.1.2.3', '10.255.255.255'],
    'IPv4 private 172.16/12': ['172.16.0.0', '172.16.0.1', '172.20.10.5', '172.31.255.255'],
    'IPv4 private 192.168/16': ['192.168.0.1', '192.168.1.1', '192.168.255.255'],
    'IPv4 loopback 127/8': ['127.0.0.1', '127.0.0.2', '127.1.2.3', '127.255.255.254'],
    'IPv4 link-local and cloud metadata': ['169.254.0.1', '169.254.169.254', '169.254.170.2', '169.254.255.255'],
    'carrier-grade NAT 100.64/10': ['100.64.0.1', '100.100.100.200', '100.127.255.255'],
    'unspecified 0.0.0.0/8': ['0.0.0.0', '0.1.2.3', '0.255.255.255'],
    broadcast: ['255.255.255.255'],
    'IPv4 multicast 224/4': ['224.0.0.1', '224.0.0.251', '239.255.255.250'],
    'IPv4 reserved, documentation and benchmarking': [
      '192.0.0.8',
      '192.0.2.1',
      '198.51.100.7',
      '203.0.113.9',
      '198.18.0.1',
      '198.19.255.255',
      '240.0.0.1',
      '250.1.2.3',
      '192.88.99.1',
    ],
    'IPv6 loopback and unspecified': ['::1', '::', '0:0:0:0:0:0:0:1', '0000:0000:0000:0000:0000:0000:0000:0000'],
    'IPv6 unique-local fc00::/7': ['fc00::1', 'fd00::1', 'fd12:3456:789a:1::1', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
    'IPv6 link-local fe80::/10': ['fe80::1', 'fe80::1ff:fe23:4567:890a', 'febf::1', 'fe80::1%eth0'],
    'IPv6 site-local (deprecated)': ['fec0::1'],
    'IPv6 multicast': ['ff02::1', 'ff05::1:3', 'ff0e::1'],
    'IPv4-mapped IPv6 of private addresses': [
      '::ffff:10.0.0.1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:169.254.169.254',
      '::ffff:a9fe:a9fe',
      '::ffff:192.168.1.1',
      '::ffff:0.0.0.0',
    ],
    'IPv4-translated ::ffff:0:0/96': ['::ffff:0:7f00:1', '::ffff:0:a00:1'],
    'IPv4-compatible ::/96 (deprecated)': ['::7f00:1', '::a00:1', '::127.0.0.1', '::2'],
    'NAT64 64:ff9b::/96 and 64:ff9b:1::/48': ['64:ff9b::a00:1', '64:ff9b::7f00:1', '64:ff9b::808:808', '64:ff9b:1::a00:1'],
    '6to4 2002::/16': ['2002:7f00:1::', '2002:a00:1::1', '2002:c000:0204::1'],
    'Teredo 2001::/32': ['2001::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    'IPv6 documentation and reserved': ['2001:db8::1', '2001:db8:85a3::8a2e:370:7334', '3fff::1', '100::1', '2001:2::1', '2001:10::1', '2001:20::1'],
    'outside global unicast 2000::/3': ['4000::1', 'e000::1', '1::1'],
    'IPv4 in decimal, hex and octal notations': ['2130706433', '0x7f000001', '0177.0.0.1', '127.1', '0x7f.0.0.1', '167772161', '0xa9fea9fe', '012.0.0.1'],
    'not an address at all': ['', 'localhost', 'example.org', '127.0.0.1.nip.io', '999.1.1.1', '::ffff:999.0.0.1', '[::1]', 'not an ip', '1.2.3.4 '],
  };
  for (const [family, addresses] of Object.entries(refused)) {
    it(`refuses ${family}`, () => {
      for (const address of addresses) expect(isPublicAddress(address), address).toBe(false);
    });
  }

  it('accepts global unicast addresses', () => {
    const accepted = [
      '8.8.8.8',
      '1.1.1.1',
      '9.9.9.9',
      '93.184.215.14',
      '151.101.1.69',
      '2001:4860:4860::8888',
      '2606:4700:4700::1111',
      '2a00:1450:4001:82a::200e',
      '::ffff:8.8.8.8',
    ];
    for (const address of accepted) expect(isPublicAddress(address), address).toBe(true);
  });

  it('draws the edges of the private ranges exactly', () => {
    const outside = [
      '9.255.255.255',
      '11.0.0.0',
      '172.15.255.255',
      '172.32.0.0',
      '192.167.255.255',
      '192.169.0.0',
      '126.255.255.255',
      '128.0.0.0',
      '169.253.255.255',
      '169.255.0.0',
      '100.63.255.255',
      '100.128.0.0',
      '1.0.0.0',
      '223.255.255.254',
    ];
    for (const address of outside) expect(isPublicAddress(address), address).toBe(true);
  });

  const octet = fc.integer({ min: 0, max: 255 });
  const privateV4 = fc.oneof(
    fc.tuple(fc.constant(10), octet, octet, octet),
    fc.tuple(fc.integer({ min: 16, max: 31 }), octet, octet).map(([b, c, d]) => [172, b, c, d] as const),
    fc.tuple(octet, octet).map(([c, d]) => [192, 168, c, d] as const),
    fc.tuple(octet, octet, octet).map(([b, c, d]) => [127, b, c, d] as const),
    fc.tuple(octet, octet).map(([c, d]) => [169, 254, c, d] as const),
    fc.tuple(fc.integer({ min: 64, max: 127 }), octet, octet).map(([b, c, d]) => [100, b, c, d] as const),
  );

  it('refuses every address of the private IPv4 ranges, in dotted, mapped and integer forms', () => {
    fc.assert(
      fc.property(privateV4, (octets) => {
        const dotted = octets.join('.');
        const integer = octets.reduce((sum: number, part) => sum * 256 + part, 0);
        expect(isPublicAddress(dotted), dotted).toBe(false);
        expect(isPublicAddress(`::ffff:${dotted}`), `::ffff:${dotted}`).toBe(false);
        expect(isPublicAddress(String(integer)), String(integer)).toBe(false);
        expect(isPublicAddress(`0x${integer.toString(16)}`), `0x${integer.toString(16)}`).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses every unique-local and link-local IPv6 address', () => {
    const group = fc.integer({ min: 0, max: 0xffff });
    fc.assert(
      fc.property(
        fc.integer({ min: 0xfc00, max: 0xfdff }),
        fc.integer({ min: 0xfe80, max: 0xfebf }),
        fc.array(group, { minLength: 7, maxLength: 7 }),
        (ula, linkLocal, rest) => {
          const tail = rest.map((g) => g.toString(16)).join(':');
          expect(isPublicAddress(`${ula.toString(16)}:${tail}`)).toBe(false);
          expect(isPublicAddress(`${linkLocal.toString(16)}:${tail}`)).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('checkEndpointUrl with IP literals: judged without DNS or a connection', () => {
  // What the WHATWG URL parser makes of them: every one is loopback, private or metadata.
  const literals: Array<[string, string]> = [
    ['https://2130706433/', '127.0.0.1'],
    ['https://0x7f000001/', '127.0.0.1'],
    ['https://0177.0.0.1/', '127.0.0.1'],
    ['https://127.1/', '127.0.0.1'],
    ['https://0x7f.1/', '127.0.0.1'],
    ['https://017700000001/', '127.0.0.1'],
    ['https://127.0.0.1./', '127.0.0.1'],
    ['https://%31%32%37.0.0.1/', '127.0.0.1'],
    ['https://\u2460\u2461\u2466.0.0.1/', '127.0.0.1'],
    ['https://[::ffff:7f00:1]/', '[::ffff:7f00:1]'],
    ['https://[::ffff:127.0.0.1]/', '[::ffff:7f00:1]'],
    ['https://[::127.0.0.1]/', '[::7f00:1]'],
    ['https://[0:0:0:0:0:0:0:1]/', '[::1]'],
    ['https://[::]/', '[::]'],
    ['https://0/', '0.0.0.0'],
    ['https://10.1/', '10.0.0.1'],
    ['https://0x0a.0.0.1/', '10.0.0.1'],
    ['https://0xa9fea9fe/latest/meta-data/', '169.254.169.254'],
    ['https://169.254.169.254/latest/meta-data/', '169.254.169.254'],
    ['https://[::ffff:a9fe:a9fe]/', '[::ffff:a9fe:a9fe]'],
    ['https://[fd00::1]/hook', '[fd00::1]'],
    ['https://[fe80::1]/hook', '[fe80::1]'],
    ['https://[64:ff9b::a00:1]/', '[64:ff9b::a00:1]'],
    ['https://[2002:7f00:1::]/', '[2002:7f00:1::]'],
    ['https://192.168.1.20:8443/lms/webhooks', '192.168.1.20'],
    ['https://100.64.0.1/', '100.64.0.1'],
  ];

  it.each(literals)('%s (host %s) is private_host', async (raw, host) => {
    expect(new URL(raw).hostname).toBe(host);
    expect(await codeOf(checkEndpointUrl(raw, { privateHosts: 'off', resolver: tripwire }))).toBe('private_host');
    // The same without an injected resolver: still no DNS (the system lookup is a tripwire too).
    expect(await codeOf(checkEndpointUrl(raw, { privateHosts: 'off' }))).toBe('private_host');
  });

  it('accepts public IP literals without asking DNS', async () => {
    for (const raw of ['https://8.8.8.8/hook', 'https://[2001:4860:4860::8888]:8443/hook']) {
      expect(await codeOf(checkEndpointUrl(raw, { privateHosts: 'off', resolver: tripwire }))).toBe('accepted');
    }
  });
});

describe('checkEndpointUrl with host names: the injected resolver answers', () => {
  const url = 'https://lms.example.org/hook';

  it('refuses a name that resolves to a private address', async () => {
    const resolver = vi.fn(fixed({ address: '10.1.2.3', family: 4 }));
    expect(await codeOf(checkEndpointUrl(url, { privateHosts: 'off', resolver }))).toBe('private_host');
    expect(resolver).toHaveBeenCalledTimes(1);
    expect(resolver).toHaveBeenCalledWith('lms.example.org');
  });

  it('refuses a name with one public and one private address, in either order', async () => {
    const publicOne: ResolvedAddress = { address: '93.184.215.14', family: 4 };
    for (const privateOne of [
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
      { address: '169.254.169.254', family: 4 },
      { address: 'fd00::1', family: 6 },
    ] as ResolvedAddress[]) {
      expect(await codeOf(checkEndpointUrl(url, { privateHosts: 'off', resolver: fixed(publicOne, privateOne) }))).toBe('private_host');
      expect(await codeOf(checkEndpointUrl(url, { privateHosts: 'off', resolver: fixed(privateOne, publicOne) }))).toBe('private_host');
    }
  });

  it('refuses a name whose resolver answers an IPv4-mapped private address', async () => {
    expect(await codeOf(checkEndpointUrl(url, { privateHosts: 'off', resolver: fixed({ address: '::ffff:127.0.0.1', family: 6 }) }))).toBe('private_host');
  });

  it('answers validation_error when the name does not resolve', async () => {
    const failing: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND lms.example.org'), { code: 'ENOTFOUND' });
    };
    expect(await codeOf(checkEndpointUrl(url, { privateHosts: 'off', resolver: failing }))).toBe('validation_error');
    expect(await codeOf(checkEndpointUrl(url, { privateHosts: 'off', resolver: fixed() }))).toBe('validation_error');
  });

  it('accepts a name with only public addresses, and pins the first one', async () => {
    const resolver = fixed({ address: '93.184.215.14', family: 4 }, { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 });
    expect((await checkEndpointUrl(url, { privateHosts: 'off', resolver })).href).toBe(url);
    expect(await resolveOutboundAddress(new URL(url), { privateHosts: 'off', resolver })).toEqual({ address: '93.184.215.14', family: 4 });
  });
});

describe('checkEndpointUrl: scheme, credentials, outbound_private_hosts', () => {
  it('refuses http:// (and other schemes) with https_required before any resolution', async () => {
    for (const raw of ['http://lms.example.org/hook', 'http://8.8.8.8/hook', 'ftp://lms.example.org/hook', 'ws://lms.example.org/hook']) {
      expect(await codeOf(checkEndpointUrl(raw, { privateHosts: 'off', resolver: tripwire })), raw).toBe('https_required');
    }
  });

  it('refuses a URL that is not absolute with validation_error', async () => {
    for (const raw of ['', 'lms.example.org/hook', '/hook', 'https://']) {
      expect(await codeOf(checkEndpointUrl(raw, { privateHosts: 'off', resolver: tripwire })), raw).toBe('validation_error');
    }
  });

  it('refuses credentials in the URL', async () => {
    for (const raw of ['https://user:pass@lms.example.org/hook', 'https://user@lms.example.org/hook', 'https://:pass@8.8.8.8/hook']) {
      expect(await codeOf(checkEndpointUrl(raw, { privateHosts: 'off', resolver: tripwire })), raw).toBe('validation_error');
      expect(await codeOf(checkEndpointUrl(raw, { privateHosts: 'all', resolver: tripwire })), raw).toBe('validation_error');
    }
  });

  it('with outbound_private_hosts=all accepts http:// and loopback or LAN hosts', async () => {
    for (const raw of [
      'http://127.0.0.1:4781/hook',
      'https://127.0.0.1:4781/hook',
      'http://[::1]:8080/',
      'http://192.168.1.20/lms',
      'http://10.0.0.5:3000/webhooks',
    ]) {
      expect(await codeOf(checkEndpointUrl(raw, { privateHosts: 'all', resolver: tripwire })), raw).toBe('accepted');
    }
    const lan = fixed({ address: '192.168.1.20', family: 4 });
    expect(await codeOf(checkEndpointUrl('http://moodle.campus.lan/hook', { privateHosts: 'all', resolver: lan }))).toBe('accepted');
  });

  it('with outbound_private_hosts=all still refuses other schemes', async () => {
    expect(await codeOf(checkEndpointUrl('ftp://127.0.0.1/hook', { privateHosts: 'all', resolver: tripwire }))).toBe('https_required');
  });
});
