import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Longest endpoint URL accepted. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** Where webhooks may go: public unicast addresses, plus the networks the operator allowed. */
export interface TargetPolicy {
  /** Normalised CIDR ranges (WEBHOOK_ALLOWED_PRIVATE_NETWORKS). */
  allowedPrivateNetworks: readonly string[];
  requireHttps: boolean;
}

/** A receiver's host resolved and checked: the address the connection must go to, and no other. */
export interface CheckedTarget {
  address: string;
  family: 4 | 6;
}

/** A target the policy refuses, or whose host does not resolve; the message says which and why. */
export class TargetRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetRefusedError';
  }
}

/** The URL's problem in words, or undefined when its form is acceptable (its addresses are checked apart). */
export function urlProblem(raw: string, policy: Pick<TargetPolicy, 'requireHttps'>): string | undefined {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) return `url is ${raw.length} characters long: at most ${MAX_WEBHOOK_URL_LENGTH}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url must be an absolute URL such as https://ops.example.com/hooks/broker';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `url must use https${policy.requireHttps ? '' : ' or http'}, not ${url.protocol.slice(0, -1)}`;
  if (policy.requireHttps && url.protocol !== 'https:') return 'url must use https in production';
  if (url.username || url.password) return 'url must not carry credentials (user:password@): authenticate the request by its signature';
  if (url.hash) return 'url must not have a #fragment';
  return undefined;
}

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** Why the address is refused, or undefined when it may be connected to. */
export function addressProblem(text: string, policy: Pick<TargetPolicy, 'allowedPrivateNetworks'>): string | undefined {
  let address: Address;
  try {
    address = ipaddr.parse(text);
  } catch {
    return `${text} is not an IP address`;
  }
  // ::ffff:10.0.0.1 reaches 10.0.0.1: judge such an address as the IPv4 address it carries.
  const carried = address.kind() === 'ipv6' ? carriedIPv4(address as ipaddr.IPv6) : undefined;
  if (carried) address = carried;
  if (policy.allowedPrivateNetworks.some((network) => inNetwork(address, network))) return undefined;
  const range = address.range();
  if (range === 'unicast') return undefined;
  const named = carried ? `${text} (carrying ${carried.toString()})` : text;
  return `${named} is a ${RANGE_NAMES[range] ?? range} address, which is refused unless WEBHOOK_ALLOWED_PRIVATE_NETWORKS allows it`;
}

/**
 * The IPv4 address an IPv6 address hands its packets to as it is: IPv4-mapped (::ffff:a.b.c.d) and
 * IPv4-compatible (::a.b.c.d, deprecated by RFC 4291 but still routed over IPv4 by some stacks,
 * ipaddr.js calls it unicast). The translator and tunnel forms (NAT64 64:ff9b::/96 and
 * 64:ff9b:1::/48, 6to4 2002::/16, Teredo 2001::/32) are ranges of their own and refused whatever
 * they carry, unless WEBHOOK_ALLOWED_PRIVATE_NETWORKS lists the IPv6 range itself.
 */
function carriedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  if (address.isIPv4MappedAddress()) return address.toIPv4Address();
  const [a, b, c, d, e, f, high, low] = address.parts;
  // :: and ::1 are IPv6's own unspecified and loopback addresses.
  if (a || b || c || d || e || f || (high === 0 && low <= 1)) return undefined;
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

const RANGE_NAMES: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT (shared)',
  private: 'private',
  reserved: 'reserved',
  uniqueLocal: 'unique-local',
  rfc6145: 'IPv4-translated',
  rfc6052: 'NAT64',
  '6to4': '6to4',
  teredo: 'Teredo',
};

function inNetwork(address: Address, network: string): boolean {
  const [base, bits] = ipaddr.parseCIDR(network);
  return base.kind() === address.kind() && address.match(base, bits);
}

/**
 * Resolves the URL's host and checks every address it has: one refused address refuses the target
 * (a name with a public and a private address must not reach the private one on a later lookup).
 * The returned address is what the request connects to, so the check and the connection see the
 * same address (no DNS rebinding in between). Throws TargetRefusedError.
 */
export async function checkTarget(url: URL, policy: TargetPolicy, signal?: AbortSignal): Promise<CheckedTarget> {
  const problem = urlProblem(url.href, policy);
  if (problem) throw new TargetRefusedError(problem);
  // URL keeps IPv6 literals in brackets.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await resolveHost(host, signal);
  if (addresses.length === 0) throw new TargetRefusedError(`${host} has no address`);
  for (const { address } of addresses) {
    const refused = addressProblem(address, policy);
    if (refused) throw new TargetRefusedError(isIP(host) ? refused : `${host} resolves to ${refused}`);
  }
  const [first] = addresses;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

async function resolveHost(host: string, signal?: AbortSignal): Promise<{ address: string; family: number }[]> {
  // getaddrinfo cannot be cancelled: stop waiting for it when the attempt's time is up.
  const aborted = new Promise<never>((_, reject) => {
    if (!signal) return;
    const fail = () => reject(new TargetRefusedError(`resolving ${host} took too long`));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
  aborted.catch(() => undefined);
  try {
    return await Promise.race([lookup(host, { all: true, verbatim: true }), aborted]);
  } catch (error) {
    if (error instanceof TargetRefusedError) throw error;
    const code = (error as { code?: string }).code;
    throw new TargetRefusedError(`${host} does not resolve${code ? ` (${code})` : ''}`);
  }
}
