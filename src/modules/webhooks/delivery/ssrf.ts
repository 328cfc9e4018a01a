import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * The SSRF guard of webhooks (DESIGN.md, "Security"): a developer chooses the URL, so a delivery
 * must not become a way to reach the hub's own network. It is the one classifier of targets, run
 * when a webhook is registered or changed (rules.ts: a target that can never be delivered is
 * refused at once) and again at every send (send.ts: a name can change its address). The host is
 * resolved, every address it resolves to is checked, and a send then connects to a checked
 * address, so a name that resolves to a public address for the check and to 127.0.0.1 a moment
 * later (DNS rebinding) reaches nothing private.
 *
 * Decimal, octal and hex hosts (`https://2130706433/`, `https://0177.0.0.1/`, `https://0x7f.1/`)
 * are normalised to dotted IPv4 by the WHATWG URL parser before they get here, and IPv6 literals
 * to their short hex form (`[::ffff:127.0.0.1]` is `[::ffff:7f00:1]`): hostOf() takes that host.
 */

/** Address ranges no webhook may reach: [network, prefix length, what it is]. */
const FORBIDDEN_V4: readonly [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared (CGNAT; 100.100.100.200 is a cloud metadata service)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (169.254.169.254 is the cloud metadata service)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved (and broadcast)'],
];

const FORBIDDEN_V6: readonly [string, number, string][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::', 96, 'IPv4-compatible (deprecated)'],
  ['64:ff9b:1::', 48, 'local-use IPv4/IPv6 translation'],
  ['100::', 64, 'discard-only'],
  ['2001::', 23, 'IETF protocol assignments'],
  ['2001:db8::', 32, 'documentation'],
  ['3fff::', 20, 'documentation'],
  ['5f00::', 16, 'segment routing (SRv6)'],
  ['fc00::', 7, 'unique local (fd00:ec2::254 is the cloud metadata service)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

const reasons = new Map<BlockList, string>();
function rangeList(ranges: readonly [string, number, string][], family: 'ipv4' | 'ipv6'): BlockList[] {
  return ranges.map(([network, prefix, reason]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, family);
    reasons.set(list, reason);
    return list;
  });
}
const V4 = rangeList(FORBIDDEN_V4, 'ipv4');
const V6 = rangeList(FORBIDDEN_V6, 'ipv6');

/** The 8 groups of an IPv6 address (`::` expanded, a dotted IPv4 tail converted). */
function ipv6Groups(address: string): number[] {
  // a zone (`fe80::1%eth0`) names an interface of this machine, not part of the address
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const front = part(head);
  const back = part(tail);
  const zeros = tail === undefined ? [] : new Array<number>(8 - front.length - back.length).fill(0);
  return [...front, ...zeros, ...back];
}

const v4FromGroups = (hi: number, lo: number): string => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/**
 * The IPv4 address an IPv6 address carries to an IPv4 host, if any: IPv4-mapped
 * (`::ffff:127.0.0.1`), IPv4-translated (`::ffff:0:127.0.0.1`, RFC 2765), NAT64 (`64:ff9b::/96`)
 * and 6to4 (`2002:AABB:CCDD::/48`). Those reach the IPv4 address, so the IPv4 rules apply to it.
 */
function embeddedIPv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  if (g.length !== 8) return undefined;
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) return v4FromGroups(g6, g7);
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0xffff && g5 === 0) return v4FromGroups(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0)
    return v4FromGroups(g6, g7);
  if (g0 === 0x2002) return v4FromGroups(g1, g2);
  return undefined;
}

/** Why an address may not receive webhooks, or undefined when it may. */
export function forbiddenReason(address: string): string | undefined {
  const family = isIP(address);
  if (family === 4) return reasonOf(V4, address, 'ipv4');
  if (family !== 6) return 'not an IP address';
  const v4 = embeddedIPv4(address);
  if (v4 !== undefined) {
    const inner = forbiddenReason(v4);
    return inner === undefined ? undefined : `${inner} (IPv4 inside IPv6)`;
  }
  return reasonOf(V6, address, 'ipv6');
}

function reasonOf(lists: BlockList[], address: string, family: 'ipv4' | 'ipv6'): string | undefined {
  const hit = lists.find((list) => list.check(address, family));
  return hit ? reasons.get(hit) : undefined;
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** What a webhook URL's host resolved to, or why it may not be sent to. */
export type TargetCheck =
  | { ok: true; addresses: ResolvedAddress[] }
  | { ok: false; kind: 'dns_failed' | 'forbidden_address'; message: string };

/** Resolves a name to every address it has (`dns.lookup` with `all`; tests inject their own). */
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

/** A lookup slower than this fails the check (getaddrinfo itself may wait far longer). */
const RESOLVE_TIMEOUT_MS = 5_000;

/**
 * The host of a URL as the guard reads it: without the brackets of an IPv6 literal and without
 * the final dot of a fully qualified name (`LOCALHOST.` is `localhost`; the parser lowercased it).
 */
export function hostOf(url: URL): string {
  const host = url.hostname;
  if (host.startsWith('[')) return host.slice(1, -1);
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

/** `localhost` and every name under it mean this machine (RFC 6761 §6.3), whatever DNS says. */
const isLoopbackName = (host: string): boolean => host === 'localhost' || host.endsWith('.localhost');

function resolveWithin(resolve: Resolver, host: string, ms: number): Promise<ResolvedAddress[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('timeout'), { code: 'ETIMEOUT' })), ms);
  });
  return Promise.race([resolve(host), timeout]).finally(() => clearTimeout(timer));
}

/**
 * Resolves a host (a name, or an IP literal without brackets: see hostOf) and checks every
 * address it resolves to: one forbidden address refuses the whole target, so a name cannot
 * smuggle a private address in among public ones. `allowPrivate` (WEBHOOKS_ALLOW_PRIVATE_TARGETS)
 * skips the check for tests and private deployments; the host is still resolved once and pinned.
 */
export async function checkTarget(
  host: string,
  allowPrivate: boolean,
  resolve: Resolver = systemResolver,
): Promise<TargetCheck> {
  const literal = isIP(host);
  if (literal !== 0) {
    const reason = allowPrivate ? undefined : forbiddenReason(host);
    if (reason === undefined)
      return { ok: true, addresses: [{ address: host, family: literal === 6 ? 6 : 4 }] };
    return { ok: false, kind: 'forbidden_address', message: `${host} is not a public address (${reason})` };
  }
  if (!allowPrivate && isLoopbackName(host))
    return {
      ok: false,
      kind: 'forbidden_address',
      message: `${host} is not a public address (a loopback name: this machine)`,
    };
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolveWithin(resolve, host, RESOLVE_TIMEOUT_MS);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    return { ok: false, kind: 'dns_failed', message: `${host} did not resolve (${String(code ?? err)})` };
  }
  if (addresses.length === 0) return { ok: false, kind: 'dns_failed', message: `${host} has no address` };
  if (!allowPrivate) {
    for (const { address } of addresses) {
      const reason = forbiddenReason(address);
      if (reason !== undefined)
        return {
          ok: false,
          kind: 'forbidden_address',
          message: `${host} resolves to ${address}, not a public address (${reason})`,
        };
    }
  }
  return { ok: true, addresses };
}
