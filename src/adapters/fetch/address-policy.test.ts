import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressRange, isPublicAddress, isPublicUrl } from './address-policy.ts';

/**
 * A deliberately plain reference for IPv4: every non-public block as (base, prefix length) on
 * 32-bit integers, written out by hand from the IANA special-purpose registry, independent of
 * ipaddr.js and of the classifier's own table.
 */
const REFERENCE_V4: [number, number][] = [
  [0x00000000, 8], // 0.0.0.0/8 this network
  [0x0a000000, 8], // 10/8
  [0x64400000, 10], // 100.64/10 CGNAT
  [0x7f000000, 8], // 127/8
  [0xa9fe0000, 16], // 169.254/16
  [0xac100000, 12], // 172.16/12
  [0xc0000000, 24], // 192.0.0/24 IETF protocol assignments
  [0xc0000200, 24], // 192.0.2/24 TEST-NET-1
  [0xc01fc400, 24], // 192.31.196/24 AS112
  [0xc034c100, 24], // 192.52.193/24 AMT
  [0xc0586300, 24], // 192.88.99/24 6to4 relay
  [0xc0a80000, 16], // 192.168/16
  [0xc0af3000, 24], // 192.175.48/24 AS112
  [0xc6120000, 15], // 198.18/15 benchmarking
  [0xc6336400, 24], // 198.51.100/24 TEST-NET-2
  [0xcb007100, 24], // 203.0.113/24 TEST-NET-3
  [0xe0000000, 3], // 224/4 multicast + 240/4 reserved, broadcast included
];
const referencePublic = (n: number) => !REFERENCE_V4.some(([base, bits]) => n >>> (32 - bits) === base >>> (32 - bits));
const dotted = (n: number) => [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff].join('.');
const hex = (n: number) => n.toString(16);

const anyV4 = fc.integer({ min: 0, max: 0xffffffff });
/** Uniform draws rarely hit a /24, so half the draws land within a few addresses of a block edge. */
const edgyV4 = fc.oneof(
  anyV4,
  fc
    .tuple(fc.constantFrom(...REFERENCE_V4), fc.boolean(), fc.integer({ min: -2, max: 2 }))
    .map(([[base, bits], end, delta]) => (base + (end ? 2 ** (32 - bits) - 1 : 0) + delta + 2 ** 32) % 2 ** 32),
);

describe('addressRange (IPv4)', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['0.255.255.255', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.255', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.99', 'reserved'],
    ['198.19.0.1', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['192.88.99.1', 'reserved'],
    ['192.175.48.1', 'as112'],
  ])('%s is %s', (ip, range) => {
    expect(addressRange(ip)).toBe(range);
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '169.255.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.167.255.255',
    '192.169.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
  ])('%s is public', (ip) => {
    expect(addressRange(ip)).toBe('public');
  });

  it('agrees with the plain reference on random and edge-of-block addresses', () => {
    fc.assert(
      fc.property(edgyV4, (n) => isPublicAddress(dotted(n)) === referencePublic(n)),
      { numRuns: 20_000 },
    );
  });
});

describe('addressRange (IPv6)', () => {
  it.each([
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['febf:ffff::1', 'linkLocal'],
    ['fec0::1', 'deprecatedSiteLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fdff:ffff::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['100::1', 'discard'],
    ['::ffff:127.0.0.1', 'ipv4Mapped(loopback)'],
    ['::ffff:7f00:1', 'ipv4Mapped(loopback)'],
    ['::ffff:10.0.0.1', 'ipv4Mapped(private)'],
    ['::ffff:169.254.169.254', 'ipv4Mapped(linkLocal)'],
    ['::127.0.0.1', 'reserved'], // IPv4-compatible (deprecated)
    ['::8.8.8.8', 'reserved'],
    ['::808:808', 'reserved'],
    ['::ffff:0:127.0.0.1', 'rfc6145'],
    ['64:ff9b::10.0.0.1', 'nat64(private)'],
    ['64:ff9b::127.0.0.1', 'nat64(loopback)'],
    ['64:ff9b:1::8.8.8.8', 'rfc6052'], // local-use NAT64: refused outright
    ['2002:7f00:1::1', '6to4(loopback)'],
    ['2002:c0a8:101::1', '6to4(private)'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo(reserved)'], // client 192.0.2.45 (documentation)
    ['2001:0:a00:1:8000:63bf:f7f7:f7f7', 'teredo(private)'], // server 10.0.0.1
    ['2001:db8::1', 'reserved'],
    ['3fff::1', 'reserved'],
    ['2001:2::1', 'benchmarking'],
    ['2620:4f:8000::1', 'as112v6'],
    ['5f00::1', 'segmentRouting'],
    ['4000::1', 'reserved'],
    ['1fff::1', 'reserved'],
  ])('%s is %s', (ip, range) => {
    expect(addressRange(ip)).toBe(range);
  });

  it.each([
    '2001:4860:4860::8888',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
    '2002:808:808::1',
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7', // Teredo, server 65.54.227.120, client 8.8.8.8
  ])('%s is public', (ip) => {
    expect(addressRange(ip)).toBe('public');
  });

  it('judges every IPv4 embedding by the embedded address', () => {
    fc.assert(
      fc.property(edgyV4, (n) => {
        const hi = hex(n >>> 16);
        const lo = hex(n & 0xffff);
        const inv = (x: number) => hex(~x & 0xffff);
        const expected = referencePublic(n);
        return (
          isPublicAddress(`::ffff:${dotted(n)}`) === expected &&
          isPublicAddress(`64:ff9b::${hi}:${lo}`) === expected &&
          isPublicAddress(`2002:${hi}:${lo}::1`) === expected &&
          isPublicAddress(`2001:0:4136:e378:8000:63bf:${inv(n >>> 16)}:${inv(n & 0xffff)}`) === expected &&
          isPublicAddress(`2001:0:${hi}:${lo}:8000:63bf:f7f7:f7f7`) === expected
        );
      }),
      { numRuns: 5_000 },
    );
  });

  const hextet = fc.integer({ min: 0, max: 0xffff });
  it('refuses everything outside global unicast 2000::/3 except IPv4-mapped and NAT64 embeddings', () => {
    const first = fc.oneof(fc.integer({ min: 1, max: 0x1fff }), fc.integer({ min: 0x4000, max: 0xffff }));
    fc.assert(
      fc.property(first, fc.array(hextet, { minLength: 7, maxLength: 7 }), (h0, rest) => {
        fc.pre(h0 !== 0x64);
        return !isPublicAddress([h0, ...rest].map(hex).join(':'));
      }),
      { numRuns: 5_000 },
    );
  });

  it('accepts global unicast except its reserved, documentation and AS112 blocks', () => {
    const first = fc.oneof(fc.integer({ min: 0x2000, max: 0x3fff }), fc.constantFrom(0x2001, 0x2620, 0x3fff));
    const second = fc.oneof(hextet, fc.constantFrom(0, 0x1ff, 0x200, 0xdb8, 0x4f, 0xfff, 0x1000));
    const third = fc.oneof(hextet, fc.constant(0x8000));
    fc.assert(
      fc.property(first, second, third, fc.array(hextet, { minLength: 5, maxLength: 5 }), (h0, h1, h2, rest) => {
        fc.pre(h0 !== 0x2002); // 6to4, judged by its IPv4 (property above)
        const expected = !(
          (h0 === 0x2001 && (h1 < 0x200 || h1 === 0xdb8)) ||
          (h0 === 0x3fff && h1 < 0x1000) ||
          (h0 === 0x2620 && h1 === 0x4f && h2 === 0x8000)
        );
        fc.pre(!(h0 === 0x2001 && h1 === 0)); // Teredo, judged by its IPv4s (property above)
        return isPublicAddress([h0, h1, h2, ...rest].map(hex).join(':')) === expected;
      }),
      { numRuns: 5_000 },
    );
  });
});

describe('addressRange (not an address)', () => {
  it.each([
    '',
    'localhost',
    'example.com',
    '1.2.3',
    '256.1.1.1',
    '01.2.3.4',
    '0x7f.0.0.1',
    'fe80::1%eth0',
    '[::1',
    ':::1',
  ])('%j is invalid and never public', (text) => {
    expect(addressRange(text)).toBe('invalid');
    expect(isPublicAddress(text)).toBe(false);
  });

  it('never throws and never calls arbitrary text public', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const r = addressRange(s);
        return r === 'public' ? /^[0-9a-f:.[\]]+$/i.test(s) : true;
      }),
    );
  });
});

describe('isPublicUrl (may a provider on the internet fetch a link to it?)', () => {
  it.each([
    ['https://atelier.example/v1/blobs/x', false],
    ['https://atelier.acme.io/v1/blobs/x', true],
    ['https://bucket.s3.eu-west-1.amazonaws.com/k?X-Amz-Signature=1', true],
    ['http://localhost:8080/v1/blobs/x', false],
    ['http://app.localhost/x', false],
    ['http://127.0.0.1:8080/x', false],
    ['http://10.1.2.3/x', false],
    ['http://192.168.1.20:9000/bucket/k', false],
    ['http://[::1]:8080/x', false],
    ['http://minio:9000/bucket/k', false],
    ['http://nas.local/x', false],
    ['http://files.internal/x', false],
    ['http://8.8.8.8/x', true],
    ['ftp://files.acme.io/x', false],
    ['not a url', false],
  ])('%s → %s', (url, expected) => {
    expect(isPublicUrl(url)).toBe(expected);
  });
});
