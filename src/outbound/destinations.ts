import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Which addresses outbound calls may reach. Public addresses are reachable; loopback and private
 * ranges only when the operator lists them (STRATUM_OUTBOUND_ALLOW: host names, addresses and
 * CIDR ranges); link-local, cloud metadata, unspecified, multicast and broadcast addresses never,
 * whatever the list says, so a broad range cannot open them by accident.
 */
export class Destinations {
  private readonly names: ReadonlySet<string>;
  private readonly ranges = new BlockList();

  constructor(allowed: readonly string[]) {
    const names = new Set<string>();
    for (const entry of allowed) {
      const range = parseRange(entry);
      if (range === undefined) names.add(entry.toLowerCase());
      else this.ranges.addSubnet(range.address, range.prefix, range.family);
    }
    this.names = names;
  }

  /** Why a host name may not be called, before it is resolved; undefined when it may be. */
  refusedName(host: string): string | undefined {
    const name = host.toLowerCase().replace(/\.$/, '');
    if (metadataNames.has(name)) return 'it is a cloud metadata service';
    return undefined;
  }

  /**
   * The address to call `host` at (an address itself, or the first it resolves to), once neither
   * its name nor any address it resolves to is refused; why not otherwise. The caller connects to
   * that address alone, so a second lookup cannot slip past.
   */
  async resolve(host: string): Promise<{ address: string; family: number } | { refused: string }> {
    const refusedName = this.refusedName(host);
    if (refusedName !== undefined) return { refused: `${host} is refused: ${refusedName}` };
    let addresses: { address: string; family: number }[];
    try {
      addresses = isIP(host) === 0 ? await lookup(host, { all: true, verbatim: true }) : [{ address: host, family: isIP(host) }];
    } catch {
      return { refused: `${host} could not be resolved` };
    }
    for (const candidate of addresses) {
      const refused = this.refusedAddress(host, candidate.address);
      if (refused !== undefined) return { refused: `${host} is refused: ${candidate.address}: ${refused}` };
    }
    return addresses[0] ?? { refused: `${host} resolves to no address` };
  }

  /** Why an address a host resolved to may not be called; undefined when it may be. */
  refusedAddress(host: string, address: string): string | undefined {
    const { plain, family } = normalize(address);
    if (never.check(plain, family)) return 'it is a link-local, metadata, unspecified, multicast or broadcast address';
    if (this.names.has(host.toLowerCase()) || this.ranges.check(plain, family)) return undefined;
    if (internal.check(plain, family)) return 'it is a loopback or private address that STRATUM_OUTBOUND_ALLOW does not list';
    return undefined;
  }
}

/** `10.0.0.0/8`, `fd00::/8`, or one address (a range of one); undefined for a host name. */
export function parseRange(entry: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [address = '', prefixText] = entry.split('/');
  const version = isIP(address);
  if (version === 0) return undefined;
  const most = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? most : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > most || (prefixText !== undefined && !/^\d+$/.test(prefixText))) return undefined;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** Whether an entry of STRATUM_OUTBOUND_ALLOW reads as a host name, an address or a CIDR range. */
export function isAllowEntry(entry: string): boolean {
  if (entry.includes('/')) return parseRange(entry) !== undefined;
  return isIP(entry) !== 0 || /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(entry);
}

const metadataNames = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

const never = new BlockList();
never.addSubnet('0.0.0.0', 8, 'ipv4');
never.addSubnet('169.254.0.0', 16, 'ipv4');
never.addSubnet('224.0.0.0', 4, 'ipv4');
never.addSubnet('240.0.0.0', 4, 'ipv4');
never.addAddress('100.100.100.200', 'ipv4');
never.addAddress('::', 'ipv6');
never.addSubnet('fe80::', 10, 'ipv6');
never.addSubnet('ff00::', 8, 'ipv6');
never.addAddress('fd00:ec2::254', 'ipv6');

const internal = new BlockList();
internal.addSubnet('127.0.0.0', 8, 'ipv4');
internal.addSubnet('10.0.0.0', 8, 'ipv4');
internal.addSubnet('172.16.0.0', 12, 'ipv4');
internal.addSubnet('192.168.0.0', 16, 'ipv4');
internal.addSubnet('100.64.0.0', 10, 'ipv4');
internal.addSubnet('198.18.0.0', 15, 'ipv4');
internal.addAddress('::1', 'ipv6');
internal.addSubnet('fc00::', 7, 'ipv6');

/** An address as checked: an IPv4 address written as IPv6 (`::ffff:169.254.169.254`) is the IPv4 one. */
function normalize(address: string): { plain: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1] !== undefined) return { plain: mapped[1], family: 'ipv4' };
  return { plain: address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}
