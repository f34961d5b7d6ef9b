import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

/** A module version as the registry protocol names it. */
export interface ModuleVersionName {
  namespace: string;
  name: string;
  provider: string;
  version: string;
}

/** Where a module version's zip is served, as Terrakube's registry serves it. */
export const archiveRoute = '/terraform/modules/v1/download/:namespace/:name/:provider/:version/module.zip';

/**
 * Signed, short-lived links to module archives. Terraform fetches the address X-Terraform-Get
 * names without the registry's token, and the web UI without any: the link itself is the
 * authority, an HMAC-SHA256 over the module version's names and an expiry. Its key is derived from
 * the token signing key, so every replica that accepts the same tokens accepts the same links, and
 * a new signing key ends the links signed before it.
 */
export class ModuleLinks {
  private readonly key: Buffer;

  constructor(
    signingKey: string,
    /** How long a link serves, from when /download gave it. */
    readonly lifetimeSeconds: number,
  ) {
    this.key = createHmac('sha256', signingKey).update('stratum module archive link').digest();
  }

  /** The path and query of a version's zip, valid for the lifetime from now. */
  pathOf(module: ModuleVersionName): string {
    const expires = String(Math.floor(Date.now() / 1000) + this.lifetimeSeconds);
    const path = archiveRoute.replace(/:(\w+)/g, (_whole, name: string) => encodeURIComponent(module[name as keyof ModuleVersionName]));
    return `${path}?expires=${expires}&signature=${this.signature(module, expires)}`;
  }

  /** Whether `signature` signs exactly this version until `expires`, and that is not past. */
  allows(module: ModuleVersionName, expires: string | undefined, signature: string | undefined): boolean {
    if (expires === undefined || signature === undefined || !/^\d{1,12}$/.test(expires)) return false;
    if (Number(expires) < Date.now() / 1000) return false;
    const expected = Buffer.from(this.signature(module, expires));
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private signature(module: ModuleVersionName, expires: string): string {
    const message = JSON.stringify([module.namespace, module.name, module.provider, module.version, expires]);
    return createHmac('sha256', this.key).update(message).digest('base64url');
  }
}

/**
 * The origin the caller reached the server at, for an absolute address: its Host, and the scheme
 * a TLS proxy in front says in X-Forwarded-Proto (else the connection's). What a client sends
 * there only shapes its own answer. Undefined for a Host that is no host name or address.
 */
export function originOf(request: FastifyRequest): string | undefined {
  const forwarded = String(request.headers['x-forwarded-proto'] ?? '')
    .split(',')[0]
    ?.trim()
    .toLowerCase();
  const scheme = forwarded === 'https' || forwarded === 'http' ? forwarded : request.protocol;
  const host = request.host;
  if (!/^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/.test(host)) return undefined;
  return `${scheme}://${host}`;
}
