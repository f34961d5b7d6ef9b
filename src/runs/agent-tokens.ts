import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { ServiceWork } from '../engine/index.js';
import type { KeptTable, ResourceDeclaration, Row } from '../model/index.js';

/** Who an agent token speaks for: its record, and the pool whose jobs it takes (null: the workspaces routed to no pool). */
export interface AgentIdentity {
  tokenId: string;
  pool: string | null;
  /** The pool's organization; null for a token of no pool. */
  organizationId: string | null;
}

/** An agent token as an operator lists it: never the token, nor its hash. */
export interface AgentTokenView {
  id: string;
  pool: string | null;
  organizationId: string | null;
  description: string;
  createdBy: string;
  createdDate: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** Agent tokens in the audit trail: their pool, what they are for and until when; never their hash. */
export const agentTokenChanges: KeptTable = {
  table: 'agent_token',
  type: 'agent token',
  key: 'id',
  shown: { pool: 'agent_id', description: 'description', expiresAt: 'expires_at', revokedAt: 'revoked_at' },
};

/** What an agent token starts with: an agent's bearer token is told apart from a JWT before anything is looked up. */
const prefix = 'stratum-agent';
const hashOf = (secret: string) => createHash('sha256').update(secret).digest();
const table = agentTokenChanges.table;
/** How often a token's use is written down: an operator needs the minute an agent was last seen, not every call. */
const useRecordIntervalMs = 60_000;

export class UnknownPool extends Error {}

/** An agent's executor as the service knows it: inside its token's name, so that it holds only what it took. */
export const agentExecutor = (tokenId: string, name: string) => `agent:${tokenId}:${name}`;
/** Whether a holder of a job is an agent's executor: another process, whose jobs end only when their lease does. */
export const isAgentExecutor = (executor: string) => executor.startsWith('agent:');

/**
 * The credentials of agents, which take jobs over HTTP (`stratum agent`) holding neither the
 * database nor the keys: an opaque token `stratum-agent.<id>.<secret>` of which only the secret's
 * SHA-256 is stored, issued and revoked at the console, for one agent pool of an organization or for
 * the workspaces of no pool. It reaches the runner API alone (http/routes/runner-routes.ts), where
 * agent-port.ts scopes every call to the jobs its agents hold.
 */
export class AgentTokens {
  private readonly usedAt = new Map<string, number>();

  constructor(
    private readonly work: ServiceWork,
    private readonly records: { agent: ResourceDeclaration },
  ) {}

  /** Issues a token for `pool` (an agent record's id; null for none), living `ttlSeconds` (undefined: until revoked). */
  async issue(
    pool: string | null,
    description: string,
    ttlSeconds: number | undefined,
    by: string,
  ): Promise<{ id: string; token: string; expiresAt: string | null }> {
    const organizationId = pool === null ? null : await this.organizationOf(pool);
    if (organizationId === undefined) throw new UnknownPool(`there is no agent pool ${String(pool)}`);
    const id = randomUUID();
    const secret = randomBytes(32).toString('base64url');
    const now = new Date();
    const expiresAt = ttlSeconds === undefined ? null : new Date(now.getTime() + ttlSeconds * 1000).toISOString();
    const row: Row = {
      id,
      agent_id: pool,
      token_hash: hashOf(secret).toString('hex'),
      description,
      expires_at: expiresAt,
      revoked_at: null,
      last_used_at: null,
      created_by: by,
      created_date: now.toISOString(),
      updated_by: by,
      updated_date: now.toISOString(),
    };
    await this.work.transaction((tx) => tx.keep(agentTokenChanges, row, { action: 'issue', organizationId: organizationId ?? undefined }));
    return { id, token: `${prefix}.${id}.${secret}`, expiresAt };
  }

  /** Every agent token, oldest first: the live ones, or with `includeInactive` every one. */
  async list(includeInactive: boolean): Promise<AgentTokenView[]> {
    const rows = await this.work.db
      .selectFrom(`${table} as t`)
      .leftJoin(`${this.records.agent.table} as a`, 'a.id', 't.agent_id')
      .selectAll('t')
      .select('a.organization_id')
      .orderBy('t.created_date')
      .orderBy('t.id')
      .execute();
    const now = new Date().toISOString();
    return rows.filter((row) => includeInactive || isLive(row, now)).map(viewOf);
  }

  /** Revokes a token; false when there is none of that id (revoking one twice is not an error). */
  async revoke(id: string, by: string): Promise<boolean> {
    return this.work.transaction(async (tx) => {
      const before = await tx.db.selectFrom(`${table} as t`).selectAll().where('id', '=', id).executeTakeFirst();
      if (before === undefined) return false;
      if (before.revoked_at !== null) return true;
      const now = new Date().toISOString();
      const after = { ...before, revoked_at: now, updated_by: by, updated_date: now };
      await tx.db.updateTable(table).set({ revoked_at: now, updated_by: by, updated_date: now }).where('id', '=', id).execute();
      const pool = text(before.agent_id);
      const organizationId = pool === null ? undefined : await this.organizationOf(pool, tx.db);
      tx.recordKept(agentTokenChanges, { action: 'revoke', organizationId, before, after });
      return true;
    });
  }

  /** Who a bearer token speaks for: undefined unless it is a live agent token of a pool that still exists. */
  async verify(token: string): Promise<AgentIdentity | undefined> {
    const [head, id, secret, ...rest] = token.split('.');
    if (head !== prefix || id === undefined || secret === undefined || rest.length > 0 || !/^[0-9a-f-]{36}$/.test(id)) return undefined;
    const row = await this.work.db
      .selectFrom(`${table} as t`)
      .leftJoin(`${this.records.agent.table} as a`, 'a.id', 't.agent_id')
      .select(['t.token_hash', 't.agent_id', 't.expires_at', 't.revoked_at', 'a.organization_id'])
      .where('t.id', '=', id)
      .executeTakeFirst();
    if (row === undefined || !isLive(row, new Date().toISOString())) return undefined;
    const stored = Buffer.from(String(row.token_hash), 'hex');
    const presented = hashOf(secret);
    if (stored.length !== presented.length || !timingSafeEqual(stored, presented)) return undefined;
    await this.recordUse(id);
    return { tokenId: id, pool: text(row.agent_id), organizationId: text(row.organization_id) };
  }

  /** The pool's organization, read on `db` (a transaction's, inside one: the embedded store has one connection). */
  private async organizationOf(pool: string, db = this.work.db): Promise<string | undefined> {
    const found = await db.selectFrom(this.records.agent.table).select('organization_id').where('id', '=', pool).executeTakeFirst();
    return found === undefined ? undefined : String(found.organization_id);
  }

  /** Bookkeeping, as an API token's use is: at most once a minute per token, and a failure to write it fails nothing. */
  private async recordUse(id: string): Promise<void> {
    const now = Date.now();
    if (now - (this.usedAt.get(id) ?? 0) < useRecordIntervalMs) return;
    if (this.usedAt.size >= 10_000) this.usedAt.clear();
    this.usedAt.set(id, now);
    await this.work.db
      .updateTable(table)
      .set({ last_used_at: new Date(now).toISOString() })
      .where('id', '=', id)
      .execute()
      .catch(() => undefined);
  }
}

/** A column's text; null for none. */
const text = (value: unknown): string | null => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null);

const isLive = (row: Row, now: string) => row.revoked_at === null && (row.expires_at === null || (text(row.expires_at) ?? '') > now);

function viewOf(row: Row): AgentTokenView {
  return {
    id: String(row.id),
    pool: text(row.agent_id),
    organizationId: text(row.organization_id),
    description: String(row.description),
    createdBy: String(row.created_by),
    createdDate: String(row.created_date),
    expiresAt: text(row.expires_at),
    lastUsedAt: text(row.last_used_at),
    revokedAt: text(row.revoked_at),
  };
}
