import type { AddressInfo } from 'node:net';

/**
 * The URL of a listener's bound address. A wildcard address (every interface) is printed as it is,
 * unless `wildcardAs` names the host that reaches it on this machine: `localhost` for a person
 * reading the log, `127.0.0.1` for the service's own calls (`localhost` may resolve to ::1, which a
 * listener on 0.0.0.0 does not take).
 */
export function listenerUrl({ address, family, port }: AddressInfo, wildcardAs?: string): string {
  const wildcard = address === '0.0.0.0' || address === '::';
  const host = wildcard && wildcardAs !== undefined ? wildcardAs : family === 'IPv6' ? `[${address}]` : address;
  return `http://${host}:${port}`;
}
