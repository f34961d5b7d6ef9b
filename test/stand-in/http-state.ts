/**
 * Terraform's http state backend as a client: the block's arguments with the TF_HTTP_* environment
 * as their defaults, LOCK and UNLOCK with Terraform's lock-info JSON, GET, and the state upload
 * with `?ID=<lock id>`, Content-MD5 and Basic auth. Status codes are read as Terraform reads them.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BackendBlock } from './configuration.ts';
import { Diagnostic } from './diagnostics.ts';
import { stateText, terraformUuid, type StateV4 } from './state.ts';
import { standInVersion } from './version.ts';

export interface BackendSettings {
  address: URL;
  updateMethod: string;
  lockAddress: URL | undefined;
  lockMethod: string;
  unlockAddress: URL | undefined;
  unlockMethod: string;
  username: string | undefined;
  password: string | undefined;
  retryMax: number;
}

const argumentsByVariable: Record<string, string> = {
  address: 'TF_HTTP_ADDRESS',
  update_method: 'TF_HTTP_UPDATE_METHOD',
  lock_address: 'TF_HTTP_LOCK_ADDRESS',
  unlock_address: 'TF_HTTP_UNLOCK_ADDRESS',
  lock_method: 'TF_HTTP_LOCK_METHOD',
  unlock_method: 'TF_HTTP_UNLOCK_METHOD',
  username: 'TF_HTTP_USERNAME',
  password: 'TF_HTTP_PASSWORD',
  retry_max: 'TF_HTTP_RETRY_MAX',
};

/** An argument written in the block wins; the environment variable is only its default, as in Terraform. */
export function backendSettings(block: BackendBlock, env: NodeJS.ProcessEnv): BackendSettings {
  for (const key of Object.keys(block)) {
    if (!(key in argumentsByVariable))
      throw new Diagnostic(
        'Unsupported argument',
        `An argument named "${key}" is not expected in the http backend block (or the stand-in does not model it).`,
      );
  }
  const setting = (key: string): string | undefined => {
    const written = block[key];
    if (typeof written === 'string' || typeof written === 'number' || typeof written === 'boolean') return String(written);
    if (written !== undefined) throw new Diagnostic('Invalid backend configuration', `The argument "${key}" must be a literal value.`);
    const variable = argumentsByVariable[key];
    const fromEnv = variable === undefined ? undefined : env[variable];
    return fromEnv === '' ? undefined : fromEnv;
  };
  const url = (key: string): URL | undefined => {
    const text = setting(key);
    if (text === undefined) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(text);
    } catch {
      throw new Diagnostic('Invalid backend configuration', `failed to parse ${key} URL: ${text}`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new Diagnostic('Invalid backend configuration', `${key} must be HTTP or HTTPS`);
    return parsed;
  };
  const address = url('address');
  if (address === undefined) throw new Diagnostic('Missing required argument', 'The argument "address" is required, but was not set.');
  return {
    address,
    updateMethod: setting('update_method') ?? 'POST',
    lockAddress: url('lock_address'),
    lockMethod: setting('lock_method') ?? 'LOCK',
    unlockAddress: url('unlock_address'),
    unlockMethod: setting('unlock_method') ?? 'UNLOCK',
    username: setting('username'),
    password: setting('password'),
    retryMax: Number(setting('retry_max') ?? '2'),
  };
}

interface Answer {
  status: number;
  body: Buffer;
}

export class HttpState {
  private lockInfo: Buffer | undefined;
  private lockId: string | undefined;

  constructor(private readonly settings: BackendSettings) {}

  /** Without a lock address Terraform does not lock at all, and neither does the stand-in. */
  async lock(operation: 'OperationTypePlan' | 'OperationTypeApply' | 'OperationTypeRefresh'): Promise<void> {
    if (this.settings.lockAddress === undefined) return;
    const info = {
      ID: terraformUuid(),
      Operation: operation,
      Info: '',
      Who: `${os.userInfo().username}@${os.hostname()}`,
      Version: standInVersion,
      Created: goTime(),
      Path: '',
    };
    const body = Buffer.from(JSON.stringify(info));
    const answer = await this.request(this.settings.lockMethod, this.settings.lockAddress, body, 'lock');
    const failure = (reason: string) =>
      new Diagnostic(
        'Error acquiring the state lock',
        `Error message: ${reason}\n\nTerraform acquires a state lock to protect the state from being written\nby multiple users at the same time. Please resolve the issue above and try\nagain. For most commands, you can disable locking with the "-lock=false"\nflag, but this is not recommended.`,
      );
    if (answer.status === 200) {
      this.lockInfo = body;
      this.lockId = info.ID;
      return;
    }
    if (answer.status === 401) throw failure('HTTP remote state endpoint requires auth');
    if (answer.status === 403) throw failure('HTTP remote state endpoint invalid auth');
    if (answer.status === 409 || answer.status === 423) {
      let holder: unknown;
      try {
        holder = JSON.parse(answer.body.toString('utf8'));
      } catch {
        throw failure('HTTP remote state already locked, failed to unmarshal body');
      }
      const id = typeof holder === 'object' && holder !== null && 'ID' in holder ? String(holder.ID) : '';
      // Terraform shows the lock info it tried to take, not the holder's.
      const mine = [
        'Lock Info:',
        `  ID:        ${info.ID}`,
        `  Path:      ${info.Path}`,
        `  Operation: ${info.Operation}`,
        `  Who:       ${info.Who}`,
        `  Version:   ${info.Version}`,
        `  Created:   ${info.Created.replace('T', ' ').replace('Z', ' +0000 UTC')}`,
        `  Info:      ${info.Info}`,
        '',
      ].join('\n');
      throw failure(`HTTP remote state already locked: ID=${id}\n${mine}`);
    }
    throw failure(`Unexpected HTTP response code ${answer.status}`);
  }

  async unlock(): Promise<void> {
    if (this.settings.unlockAddress === undefined || this.lockInfo === undefined) return;
    const answer = await this.request(this.settings.unlockMethod, this.settings.unlockAddress, this.lockInfo, 'unlock');
    this.lockInfo = undefined;
    this.lockId = undefined;
    if (answer.status !== 200) {
      throw new Diagnostic('Error releasing the state lock', `Error message: Unexpected HTTP response code ${answer.status}`);
    }
  }

  async get(): Promise<StateV4 | undefined> {
    const answer = await this.request('GET', this.settings.address, undefined, 'get state');
    const failure = (reason: string) => new Diagnostic('Error loading state', reason);
    if (answer.status === 204 || answer.status === 404) return undefined;
    if (answer.status === 401) throw failure('HTTP remote state endpoint requires auth');
    if (answer.status === 403) throw failure('HTTP remote state endpoint invalid auth');
    if (answer.status === 500) throw failure('HTTP remote state internal server error');
    if (answer.status !== 200) throw failure(`Unexpected HTTP response code ${answer.status}`);
    if (answer.body.length === 0) return undefined;
    let state: { version?: unknown };
    try {
      state = JSON.parse(answer.body.toString('utf8')) as { version?: unknown };
    } catch (error) {
      throw failure(`Failed to read state: ${String(error)}`);
    }
    if (state.version !== 4) throw failure(`The stand-in reads state format version 4 only, not ${JSON.stringify(state.version)}`);
    return state as StateV4;
  }

  /** Fails with the client's own words (`HTTP error: 413`): each caller reports them as Terraform does there. */
  async put(state: StateV4): Promise<void> {
    const target = new URL(this.settings.address);
    if (this.lockId !== undefined) target.searchParams.set('ID', this.lockId);
    const answer = await this.request(this.settings.updateMethod, target, Buffer.from(stateText(state)), 'upload state');
    if (![200, 201, 204].includes(answer.status)) throw new Error(`HTTP error: ${answer.status}`);
  }

  /** Retries a refused connection or a 5xx other than 501, as Terraform's retrying client does (1s, then 2s...). */
  private async request(method: string, url: URL, body: Buffer | undefined, what: string): Promise<Answer> {
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= this.settings.retryMax;
      try {
        const answer = await this.send(method, url, body);
        if (last || answer.status < 500 || answer.status === 501) return answer;
      } catch (error) {
        if (last)
          throw new Diagnostic(
            `Failed to ${what}`,
            `${method} ${url.origin}${url.pathname} giving up after ${attempt + 1} attempts: ${String(error)}`,
          );
      }
      await sleep(1000 * 2 ** attempt);
    }
  }

  private send(method: string, url: URL, body: Buffer | undefined): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (this.settings.username !== undefined) {
      headers.Authorization = `Basic ${Buffer.from(`${this.settings.username}:${this.settings.password ?? ''}`).toString('base64')}`;
    }
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = String(body.length);
      headers['Content-MD5'] = createHash('md5').update(body).digest('base64');
    }
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const request = transport.request(url, { method, headers, agent: false }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }));
        response.on('error', reject);
      });
      request.on('error', reject);
      request.end(body);
    });
  }
}

/** The time as Go marshals it into the lock info: RFC 3339 in UTC with nanoseconds, trailing zeros dropped. */
function goTime(): string {
  const now = new Date();
  const nanoseconds = `${String(now.getUTCMilliseconds()).padStart(3, '0')}${String(process.hrtime()[1] % 1_000_000).padStart(6, '0')}`;
  const fraction = nanoseconds.replace(/0+$/, '');
  return `${now.toISOString().slice(0, 19)}${fraction === '' ? '' : `.${fraction}`}Z`;
}
