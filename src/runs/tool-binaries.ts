import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import yauzl from 'yauzl';

/** The tools a workspace runs: Terraform, or OpenTofu for `iacType: tofu`; the two are used alike. */
export type ToolKind = 'terraform' | 'tofu';

export interface ToolBinarySettings {
  /** Versions live at `<directory>/<tool>/<version>/<tool>`, put there by an operator or by a download. */
  directory: string;
  /**
   * Where a missing version is downloaded from: the release lists Stratum serves to the web UI
   * (HashiCorp's `index.json` for Terraform, GitHub's list of releases for OpenTofu). Undefined: a
   * version must be in the directory already.
   */
  releases: Readonly<Record<ToolKind, string | undefined>>;
  timeoutMs: number;
  /** The largest archive, checksum list or release list read, in bytes. */
  maxBytes: number;
  /** The build to download, in the release lists' names (`linux`, `amd64`). */
  platform: { os: string; arch: string };
}

/** Why a job cannot have the tool it asks for: said in the job's failure, as is. */
export class ToolProblem extends Error {}

/** Whether a version can run: in the folder, to be downloaded at its first use, or neither (and why). */
export type ToolAvailability =
  { kind: 'present'; path: string } | { kind: 'downloadable'; from: string } | { kind: 'missing'; path: string; reason: string };

/** Versions as releases name them: `1.5.7`, `1.6.0-beta1`; nothing that could walk out of the directory. */
const versionPattern = /^\d{1,4}\.\d{1,4}\.\d{1,4}(?:-[0-9A-Za-z.]{1,32})?$/;

/**
 * Finds the binary of a tool version, downloading it once when the directory lacks it: the archive
 * for this platform, checked against the release's SHA256SUMS before the binary is unpacked, and
 * moved into place whole, so a crash or a concurrent download never leaves half a binary where a
 * job would run it.
 */
export class ToolBinaries {
  private readonly downloads = new Map<string, Promise<string>>();

  constructor(private readonly settings: ToolBinarySettings) {}

  async locate(kind: ToolKind, version: string): Promise<string> {
    if (!versionPattern.test(version)) throw new ToolProblem(`"${version}" is not a ${kind} version (such as 1.5.7).`);
    const target = path.join(this.settings.directory, kind, version, kind);
    if (await isExecutable(target)) return target;
    const key = `${kind}@${version}`;
    let download = this.downloads.get(key);
    if (download === undefined) {
      download = this.download(kind, version, target).finally(() => this.downloads.delete(key));
      this.downloads.set(key, download);
    }
    return download;
  }

  /**
   * Whether a version can run, without downloading it: present in the folder, or listed with a
   * build for this platform by the release list (read once per call of `lists`).
   */
  async availability(kind: ToolKind, version: string, lists = new Map<string, Promise<unknown>>()): Promise<ToolAvailability> {
    if (!versionPattern.test(version))
      return { kind: 'missing', path: this.settings.directory, reason: `"${version}" is not a ${kind} version.` };
    const target = path.join(this.settings.directory, kind, version, kind);
    if (await isExecutable(target)) return { kind: 'present', path: target };
    const releases = this.settings.releases[kind];
    if (releases === undefined)
      return { kind: 'missing', path: target, reason: `${kind} ${version} is not in ${target}, and downloads are off.` };
    try {
      let list = lists.get(releases);
      if (list === undefined) {
        // A check waits less than a download would: it runs before anyone needs the answer.
        list = this.releaseList(kind, releases, 15_000);
        lists.set(releases, list);
      }
      this.buildIn(await list, kind, version, releases);
      return { kind: 'downloadable', from: new URL(releases).origin };
    } catch (error) {
      const reason = error instanceof ToolProblem ? error.message : String(error);
      return { kind: 'missing', path: target, reason: `${kind} ${version} is not in ${target}, and it cannot be downloaded: ${reason}` };
    }
  }

  /**
   * Downloads a version into place; a failure says where the binary was looked for beside why the
   * download failed, since either is the operator's fix (put it there, or let it be downloaded).
   */
  private async download(kind: ToolKind, version: string, target: string): Promise<string> {
    const releases = this.settings.releases[kind];
    if (releases === undefined)
      throw new ToolProblem(`${kind} ${version} is not in ${target}, and downloads are off: install it there (an executable file).`);
    try {
      return await this.fetchInto(kind, version, target, releases);
    } catch (error) {
      const reason = error instanceof ToolProblem ? error.message : `writing it failed: ${(error as Error).message}`;
      throw new ToolProblem(
        `${kind} ${version} is not in ${target} (an executable file there is used as it is), and downloading it failed: ${reason}`,
      );
    }
  }

  private async fetchInto(kind: ToolKind, version: string, target: string, releases: string): Promise<string> {
    const { archive, checksums, filename } = await this.buildOf(kind, version, releases);
    const [zip, sums] = await Promise.all([
      this.fetchBytes(archive, `the ${kind} ${version} archive`),
      this.fetchBytes(checksums, 'SHA256SUMS'),
    ]);
    const expected = checksumFor(sums.toString('utf8'), filename);
    if (expected === undefined) throw new ToolProblem(`The SHA256SUMS of ${kind} ${version} lists no ${filename}.`);
    const actual = crypto.createHash('sha256').update(zip).digest('hex');
    if (actual !== expected)
      throw new ToolProblem(`The ${kind} ${version} archive does not match its SHA256SUMS (${actual} is not ${expected}).`);
    const binary = await entryOf(zip, kind);
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    const partial = `${target}.${process.pid}.${crypto.randomUUID()}.partial`;
    try {
      await fs.promises.writeFile(partial, binary, { mode: 0o755 });
      await fs.promises.rename(partial, target);
    } finally {
      await fs.promises.rm(partial, { force: true });
    }
    return target;
  }

  /** Where this platform's build of a version and its checksums are, from the tool's release list. */
  private async buildOf(kind: ToolKind, version: string, releases: string): Promise<{ archive: URL; checksums: URL; filename: string }> {
    return this.buildIn(await this.releaseList(kind, releases), kind, version, releases);
  }

  private async releaseList(kind: ToolKind, releases: string, timeoutMs = this.settings.timeoutMs): Promise<unknown> {
    const text = (await this.fetchBytes(new URL(releases), `the ${kind} release list`, timeoutMs)).toString('utf8');
    try {
      return JSON.parse(text);
    } catch {
      throw new ToolProblem(`The ${kind} release list at ${new URL(releases).origin} is not JSON.`);
    }
  }

  private buildIn(list: unknown, kind: ToolKind, version: string, releases: string): { archive: URL; checksums: URL; filename: string } {
    const { os, arch } = this.settings.platform;
    const filename = `${kind}_${version}_${os}_${arch}.zip`;
    if (kind === 'terraform') {
      // HashiCorp's index: versions[v].builds[{os, arch, filename, url}], and the name of the checksum file beside them.
      const release = (list as { versions?: Record<string, { builds?: unknown; shasums?: unknown }> }).versions?.[version];
      const builds = Array.isArray(release?.builds) ? (release.builds as { os?: unknown; arch?: unknown; url?: unknown }[]) : [];
      const build = builds.find((entry) => entry.os === os && entry.arch === arch);
      if (typeof build?.url !== 'string' || typeof release?.shasums !== 'string')
        throw new ToolProblem(`The terraform release list has no ${os}/${arch} build of ${version}.`);
      const archive = new URL(build.url, releases);
      return { archive, checksums: new URL(release.shasums, archive), filename: path.posix.basename(archive.pathname) };
    }
    // GitHub's list of releases: the release tagged v<version>, with its assets by name.
    const releaseList = Array.isArray(list) ? (list as { tag_name?: unknown; assets?: unknown }[]) : [];
    const release = releaseList.find((entry) => entry.tag_name === `v${version}`);
    const assets = Array.isArray(release?.assets) ? (release.assets as { name?: unknown; browser_download_url?: unknown }[]) : [];
    const asset = (name: string) => {
      const url = assets.find((entry) => entry.name === name)?.browser_download_url;
      return typeof url === 'string' ? new URL(url, releases) : undefined;
    };
    const archive = asset(filename);
    const checksums = asset(`tofu_${version}_SHA256SUMS`);
    if (archive === undefined || checksums === undefined)
      throw new ToolProblem(`The tofu release list has no ${os}/${arch} build of ${version}.`);
    return { archive, checksums, filename };
  }

  /** A download, bounded in time and size; the checksum, not the address, is what is trusted. */
  private async fetchBytes(url: URL, what: string, timeoutMs = this.settings.timeoutMs): Promise<Buffer> {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ToolProblem(`${what} is not at an http(s) address.`);
    let response: Response;
    try {
      response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      throw new ToolProblem(`Fetching ${what} from ${url.origin} failed: ${error instanceof Error ? error.message : String(error)}.`);
    }
    if (!response.ok || response.body === null) throw new ToolProblem(`Fetching ${what} from ${url.origin} answered ${response.status}.`);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      // Leaving the loop cancels the rest of the body.
      if (size > this.settings.maxBytes) throw new ToolProblem(`${what} is larger than ${this.settings.maxBytes} bytes.`);
      chunks.push(Buffer.from(chunk));
    }
    return Buffer.concat(chunks);
  }
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await fs.promises.access(file, fs.constants.X_OK);
    return (await fs.promises.stat(file)).isFile();
  } catch {
    return false;
  }
}

/** The checksum a SHA256SUMS file gives a file name (`<hex>  <name>` lines). */
function checksumFor(sums: string, filename: string): string | undefined {
  for (const line of sums.split('\n')) {
    const match = /^([0-9a-f]{64})\s+\*?(\S+)\s*$/.exec(line.trim());
    if (match?.[2] === filename) return match[1];
  }
  return undefined;
}

/** The tool's binary from its release archive (at the archive's top level, as both tools ship it). */
function entryOf(zip: Buffer, name: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true, strictFileNames: true }, (error, archive) => {
      if (error !== null) {
        reject(new ToolProblem(`The archive is not a zip file: ${error.message}.`));
        return;
      }
      archive.on('error', (problem: Error) => reject(new ToolProblem(`The archive cannot be read: ${problem.message}.`)));
      archive.on('end', () => reject(new ToolProblem(`The archive holds no ${name} binary.`)));
      archive.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName !== name) {
          archive.readEntry();
          return;
        }
        archive.openReadStream(entry, (streamError, stream) => {
          if (streamError !== null) {
            reject(new ToolProblem(`The archive cannot be read: ${streamError.message}.`));
            return;
          }
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('error', (problem) => reject(new ToolProblem(`The archive cannot be read: ${problem.message}.`)));
          stream.on('end', () => {
            archive.close();
            resolve(Buffer.concat(chunks));
          });
        });
      });
      archive.readEntry();
    });
  });
}
