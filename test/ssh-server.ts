import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type AddressInfo } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';

const sshd = '/usr/sbin/sshd';

/** Why this machine cannot run the SSH server, or undefined when it can (CI installs openssh-server). */
export function sshServerMissing(): string | undefined {
  if (!existsSync(sshd)) return `${sshd} is not installed (Debian's openssh-server)`;
  if (process.getuid?.() !== 0) return 'sshd serves other users only when started as root';
  return undefined;
}

/** A key pair made by ssh-keygen, as a user pastes its private half into an SSH record. */
export function sshKeyPair(): { privateKey: string; publicKey: string } {
  const folder = mkdtempSync(path.join(tmpdir(), 'stratum-test-key-'));
  try {
    const file = path.join(folder, 'key');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'stratum-test', '-f', file]);
    return { privateKey: readFileSync(file, 'utf8'), publicKey: readFileSync(`${file}.pub`, 'utf8') };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * OpenSSH's own server on a loopback port, taking the keys it is given and nothing else (no
 * passwords): a git remote reached as `ssh://<user>@127.0.0.1:<port>/<path of a bare repository>`.
 */
export class SshServer {
  private constructor(
    private readonly folder: string,
    private readonly process: ChildProcess,
    readonly port: number,
  ) {}

  static async start(authorizedKeys: string[]): Promise<SshServer> {
    const folder = mkdtempSync(path.join(tmpdir(), 'stratum-test-sshd-'));
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(folder, 'host_key')]);
    writeFileSync(path.join(folder, 'authorized_keys'), authorizedKeys.join('\n'), { mode: 0o600 });
    const port = await freePort();
    writeFileSync(
      path.join(folder, 'sshd_config'),
      [
        `Port ${port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${path.join(folder, 'host_key')}`,
        `PidFile ${path.join(folder, 'sshd.pid')}`,
        `AuthorizedKeysFile ${path.join(folder, 'authorized_keys')}`,
        // The files live in a temporary folder, which is world-writable.
        'StrictModes no',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'UsePAM no',
        'PermitRootLogin prohibit-password',
      ].join('\n'),
    );
    // The folder sshd separates its privileges into.
    mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
    const child = spawn(sshd, ['-D', '-e', '-f', path.join(folder, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
    let said = '';
    child.stderr.on('data', (chunk: Buffer) => (said += chunk.toString('utf8')));
    const server = new SshServer(folder, child, port);
    for (let attempt = 0; !(await accepts(port)); attempt++) {
      if (child.exitCode !== null || attempt > 100) {
        await server.stop();
        throw new Error(`sshd did not start: ${said}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return server;
  }

  /** The address of a bare repository on this machine, reached through this server. */
  url(repository: string): string {
    return `ssh://${userInfo().username}@127.0.0.1:${this.port}${repository}`;
  }

  async stop(): Promise<void> {
    if (this.process.exitCode === null) {
      const exited = new Promise((resolve) => this.process.once('exit', resolve));
      this.process.kill('SIGTERM');
      await exited;
    }
    rmSync(this.folder, { recursive: true, force: true });
  }
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
