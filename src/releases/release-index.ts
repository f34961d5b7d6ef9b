import fs from 'node:fs';
import type { Logger } from '../log.js';

/** The tools whose versions the workspace pages list. */
export const releaseKinds = ['terraform', 'tofu'] as const;
export type ReleaseKind = (typeof releaseKinds)[number];

/** The largest index accepted from an upstream; HashiCorp's full index is a few MiB. */
const maxIndexBytes = 32 * 1024 * 1024;
/** After a failed fetch, the next one waits this long (or the cache time, if shorter), so a dead upstream costs one wait, not one per page. */
const retryAfterMs = 60_000;
/** Redirects followed within the upstream's host (GitHub answers a renamed repository with one). */
const maxRedirects = 5;

/**
 * Whether a document has the shape Terrakube's web UI reads: HashiCorp's release index
 * (`{"versions": {"1.9.5": {...}}}`, its keys listed) for Terraform, GitHub's list of releases
 * (`[{"tag_name": "v1.8.0"}]`) for OpenTofu.
 */
export function isReleaseIndex(kind: ReleaseKind, document: unknown): boolean {
  if (kind === 'terraform') {
    const versions = typeof document === 'object' && document !== null ? (document as { versions?: unknown }).versions : undefined;
    return typeof versions === 'object' && versions !== null && !Array.isArray(versions);
  }
  return Array.isArray(document) && document.every((release) => typeof (release as { tag_name?: unknown } | null)?.tag_name === 'string');
}

/** The list shipped with the package (`assets/releases/<kind>.json`), served when no upstream answers. */
export function shippedIndex(kind: ReleaseKind): Buffer {
  const body = fs.readFileSync(new URL(`../../assets/releases/${kind}.json`, import.meta.url));
  if (!isReleaseIndex(kind, JSON.parse(body.toString('utf8')))) throw new Error(`the shipped ${kind} release list is malformed`);
  return body;
}

export interface ReleaseIndexSettings {
  /** The vendor's index; undefined: the shipped list only. */
  upstream: string | undefined;
  cacheMs: number;
  timeoutMs: number;
}

/**
 * One tool's release index as the workspace pages ask for it: the upstream's, fetched with a short
 * timeout and kept for the cache time; once stale it is still served while a fresh copy is fetched
 * in the background. Until the upstream has answered once, and whenever it cannot be reached with
 * nothing fetched before, the list shipped with the package is served, so a page never waits for
 * more than one timeout.
 */
export class ReleaseIndex {
  private copy: { body: Buffer; fetchedAt: number } | undefined;
  private pending: Promise<void> | undefined;
  private retryAt = 0;

  constructor(
    private readonly kind: ReleaseKind,
    private readonly settings: ReleaseIndexSettings,
    private readonly shipped: Buffer,
    private readonly log: Logger,
  ) {}

  async current(): Promise<Buffer> {
    const { upstream, cacheMs } = this.settings;
    if (upstream === undefined) return this.shipped;
    const now = Date.now();
    if (this.copy !== undefined && now - this.copy.fetchedAt < cacheMs) return this.copy.body;
    if (this.pending === undefined && now >= this.retryAt) {
      this.pending = this.refresh(upstream).finally(() => {
        this.pending = undefined;
      });
    }
    if (this.copy !== undefined) return this.copy.body;
    await this.pending;
    return this.fetched() ?? this.shipped;
  }

  /** The last copy fetched, read anew after a wait (a refresh may have stored one meanwhile). */
  private fetched(): Buffer | undefined {
    return this.copy?.body;
  }

  private async refresh(upstream: string): Promise<void> {
    try {
      const body = await this.fetchIndex(upstream);
      this.copy = { body, fetchedAt: Date.now() };
      this.retryAt = 0;
    } catch (error) {
      this.retryAt = Date.now() + Math.min(retryAfterMs, this.settings.cacheMs);
      // The origin only: a configured URL may carry credentials in its query.
      this.log.warn(
        { kind: this.kind, upstream: new URL(upstream).origin, reason: error instanceof Error ? error.message : String(error) },
        this.copy === undefined
          ? 'release index unavailable: serving the shipped list'
          : 'release index unavailable: serving the last copy',
      );
    }
  }

  private async fetchIndex(upstream: string): Promise<Buffer> {
    const response = await fetchWithinHost(upstream, AbortSignal.timeout(this.settings.timeoutMs));
    if (response.status !== 200 || response.body === null) throw new Error(`the upstream answered ${response.status}`);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Uint8Array).byteLength;
      if (size > maxIndexBytes) throw new Error(`the upstream's index is larger than ${maxIndexBytes} bytes`);
      chunks.push(Buffer.from(chunk as Uint8Array));
    }
    const body = Buffer.concat(chunks);
    let document: unknown;
    try {
      document = JSON.parse(body.toString('utf8'));
    } catch {
      throw new Error('the upstream answered something other than JSON');
    }
    if (!isReleaseIndex(this.kind, document)) throw new Error(`the upstream's document is not a ${this.kind} release index`);
    return body;
  }
}

/**
 * GET the upstream, following its redirects only within its own host, and never from https to
 * http. The server fetches from inside its network: a redirect to any host would let whoever
 * answers for the upstream (or sits on its way, over http) make it request an internal address.
 */
async function fetchWithinHost(upstream: string, signal: AbortSignal): Promise<Response> {
  const origin = new URL(upstream);
  let url = origin;
  for (let redirects = 0; ; redirects++) {
    const response = await fetch(url, { headers: { accept: 'application/json', 'user-agent': 'stratum' }, redirect: 'manual', signal });
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || location === null) return response;
    await response.body?.cancel();
    if (redirects === maxRedirects) throw new Error(`the upstream redirected more than ${maxRedirects} times`);
    const next = new URL(location, url);
    // The host only: the rest of the address may carry credentials.
    if (next.host !== origin.host)
      throw new Error(`the upstream redirected to another host, ${next.host}; configure its URL if that host is right`);
    if (url.protocol === 'https:' && next.protocol !== 'https:') throw new Error('the upstream redirected from https to http');
    url = next;
  }
}
