import net from 'node:net';

/**
 * STRATUM_TRUST_PROXY: unset trusts no proxy (a client could otherwise name any address in
 * X-Forwarded-For); `true`, a hop count, or addresses and CIDR ranges of the proxies.
 */
export function readTrustProxy(raw: string | undefined, problems: string[]): boolean | number | string[] {
  const value = raw?.trim();
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value.split(',').map((entry) => entry.trim());
  const bad = entries.filter((entry) => !isAddressOrRange(entry));
  if (bad.length > 0) {
    problems.push(`STRATUM_TRUST_PROXY is true, a hop count, or a comma list of addresses and CIDR ranges, got "${bad.join(', ')}"`);
    return false;
  }
  return entries;
}

function isAddressOrRange(entry: string): boolean {
  const [address = '', bits, ...rest] = entry.split('/');
  const family = net.isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  const max = family === 4 ? 32 : 128;
  return /^\d+$/.test(bits) && Number(bits) <= max;
}
