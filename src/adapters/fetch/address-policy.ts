import ipaddr from 'ipaddr.js';

/**
 * Which IP addresses the outbound fetcher may connect to. Pure: no DNS, no I/O.
 *
 * An address is public only when BOTH ipaddr.js `range()` calls it `unicast` AND it lies outside
 * every block of our own explicit tables below (IANA special-purpose registries, multicast,
 * documentation, ...). The explicit tables keep the policy stable if a future ipaddr.js renames
 * or drops a range; ipaddr.js catches anything the tables forget.
 *
 * IPv6 is allow-listed rather than deny-listed: only global unicast (2000::/3) can be public.
 * Addresses that embed an IPv4 address are judged by that IPv4 address:
 * IPv4-mapped (::ffff:a.b.c.d), NAT64 well-known prefix (64:ff9b::/96), 6to4 (2002::/16, the
 * IPv4 in bits 16-47) and Teredo (2001::/32: the server IPv4 in bits 32-63 and the client IPv4,
 * inverted, in bits 96-127; both must be public). IPv4-compatible (::a.b.c.d, deprecated),
 * SIIT (::ffff:0:a.b.c.d) and local-use NAT64 (64:ff9b:1::/48) are refused outright.
 */

/** 'public', or the name of the range that makes the address non-public. */
export type AddressRange = 'public' | 'invalid' | (string & {});

type Cidr = [string, number];

/** Non-public IPv4 blocks (RFC 6890 / IANA special-purpose registry, plus multicast and class E). */
const BLOCKED_IPV4: ReadonlyArray<readonly [name: string, cidr: Cidr]> = [
  ['unspecified', ['0.0.0.0', 8]],
  ['private', ['10.0.0.0', 8]],
  ['carrierGradeNat', ['100.64.0.0', 10]],
  ['loopback', ['127.0.0.0', 8]],
  ['linkLocal', ['169.254.0.0', 16]],
  ['private', ['172.16.0.0', 12]],
  ['reserved', ['192.0.0.0', 24]], // IETF protocol assignments
  ['reserved', ['192.0.2.0', 24]], // TEST-NET-1
  ['as112', ['192.31.196.0', 24]],
  ['amt', ['192.52.193.0', 24]],
  ['reserved', ['192.88.99.0', 24]], // 6to4 relay anycast (deprecated)
  ['private', ['192.168.0.0', 16]],
  ['as112', ['192.175.48.0', 24]],
  ['reserved', ['198.18.0.0', 15]], // benchmarking
  ['reserved', ['198.51.100.0', 24]], // TEST-NET-2
  ['reserved', ['203.0.113.0', 24]], // TEST-NET-3
  ['multicast', ['224.0.0.0', 4]],
  ['reserved', ['240.0.0.0', 4]], // class E, includes broadcast 255.255.255.255
];

/** Non-public blocks inside IPv6 global unicast (2000::/3) not handled as IPv4 embeddings. */
const BLOCKED_IPV6_GLOBAL: ReadonlyArray<readonly [name: string, cidr: Cidr]> = [
  ['reserved', ['2001::', 23]], // IETF protocol assignments (Teredo, 2001::/32, is judged by its IPv4s)
  ['reserved', ['2001:db8::', 32]], // documentation
  ['as112', ['2620:4f:8000::', 48]],
  ['reserved', ['3fff::', 20]], // documentation (RFC 9637)
];

const V4 = BLOCKED_IPV4.map(([name, [ip, bits]]) => [name, ipaddr.IPv4.parse(ip), bits] as const);
const V6 = BLOCKED_IPV6_GLOBAL.map(([name, [ip, bits]]) => [name, ipaddr.IPv6.parse(ip), bits] as const);
const GLOBAL_UNICAST: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('2000::'), 3];
const NAT64_WELL_KNOWN: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('64:ff9b::'), 96];
const TEREDO: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('2001::'), 32];

function v4FromParts(hi: number, lo: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

function classifyV4(ip: ipaddr.IPv4): AddressRange {
  for (const [name, base, bits] of V4) if (ip.match(base, bits)) return name;
  const range = ip.range();
  return range === 'unicast' ? 'public' : range;
}

function embedded(kind: string, inner: AddressRange): AddressRange {
  return inner === 'public' ? 'public' : `${kind}(${inner})`;
}

function classifyV6(ip: ipaddr.IPv6): AddressRange {
  const p = ip.parts as [number, number, number, number, number, number, number, number];
  if (ip.isIPv4MappedAddress()) return embedded('ipv4Mapped', classifyV4(ip.toIPv4Address()));
  if (ip.match(...NAT64_WELL_KNOWN)) return embedded('nat64', classifyV4(v4FromParts(p[6], p[7])));
  if (ip.match(...TEREDO)) {
    const server = classifyV4(v4FromParts(p[2], p[3]));
    if (server !== 'public') return `teredo(${server})`;
    return embedded('teredo', classifyV4(v4FromParts(p[6] ^ 0xffff, p[7] ^ 0xffff)));
  }
  const range = ip.range();
  if (range === '6to4') return embedded('6to4', classifyV4(v4FromParts(p[1], p[2])));
  if (range !== 'unicast') return range;
  if (!ip.match(...GLOBAL_UNICAST)) return 'reserved';
  for (const [name, base, bits] of V6) if (ip.match(base, bits)) return name;
  return 'public';
}

/**
 * The range an address falls in: 'public' when the fetcher may connect to it. Accepts the
 * canonical textual forms (dotted-quad IPv4, IPv6 with or without brackets); anything else is
 * 'invalid'. Decimal/octal/hex IPv4 forms are normalized earlier by WHATWG URL parsing.
 */
export function addressRange(address: string): AddressRange {
  const text = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return classifyV4(ipaddr.IPv4.parse(text));
  const v6 = canonicalIPv6(text);
  return v6 === undefined ? 'invalid' : classifyV6(ipaddr.IPv6.parse(v6));
}

/**
 * IPv6 text in the WHATWG URL serialization (hex only, zero runs compressed), or undefined when
 * it is not an IPv6 address. Parsing goes through URL rather than ipaddr.js alone because
 * ipaddr.js reads the IPv4-compatible `::127.0.0.1` as the IPv4-mapped `::ffff:127.0.0.1`.
 */
function canonicalIPv6(text: string): string | undefined {
  if (!/^[0-9a-f:.]+$/i.test(text)) return undefined;
  try {
    return new URL(`http://[${text}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
}

export function isPublicAddress(address: string): boolean {
  return addressRange(address) === 'public';
}

/** Names that never resolve on the public internet (RFC 6761, RFC 6762, RFC 8375, common LAN suffixes). */
const LOCAL_NAMES =
  /(^|\.)(localhost|local|internal|lan|home|home\.arpa|intranet|corp|localdomain|test|invalid|example)$/i;

/**
 * Whether a URL's host looks reachable from the public internet, judged from the URL alone: an IP
 * literal in a public range, or a dotted DNS name outside the local-only suffixes. (A name can
 * still resolve to a private address; an operator who knows better sets it explicitly.)
 */
export function isPublicUrl(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const { protocol, hostname } = new URL(url);
  if (protocol !== 'https:' && protocol !== 'http:') return false;
  if (addressRange(hostname) !== 'invalid') return isPublicAddress(hostname);
  return hostname.includes('.') && !LOCAL_NAMES.test(hostname.replace(/\.$/, ''));
}
