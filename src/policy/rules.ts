import type { Caller } from '../auth/caller.js';
import type { TrackedKind } from '../auth/tokens.js';
import { forbidden } from '../errors.js';
import type { Registry, ResourceDeclaration } from '../model/index.js';
import type { ReaderShape } from './tenancy.js';

/** What a rule may ask about a write: who calls, and what they hold in the tenant of the record and on the record. */
export interface PolicyContext {
  caller: Caller;
  /** The capabilities the caller's memberships give in the record's tenant, loaded when a rule first asks. */
  capabilities: () => Promise<ReadonlySet<string>>;
  /**
   * The capabilities the caller's grants give on the record, or on the record it lives in (a
   * workspace, for its variables; the new record's parent, for a create), loaded when a rule first asks.
   */
  granted: () => Promise<ReadonlySet<string>>;
}

/** A small named predicate over a write, and the sentence that explains a refusal. */
export interface Rule<Context extends { caller: Caller } = PolicyContext> {
  name: string;
  /** Capabilities the rule requires, so the table can be checked against the membership declaration. */
  requires: readonly string[];
  allows: (context: Context) => boolean | Promise<boolean>;
  /** Why a write of a `type` record in a `tenant` is refused. */
  denial: (type: string, tenant: string) => string;
}

export type WriteAction = 'create' | 'update' | 'delete';
export type WriteRules = Readonly<Record<WriteAction, Rule>>;

/**
 * Who may read the records of a global resource, which no tenant confines. It sees the reader only
 * as the shape of a query sees it (an administrator or not), so it is a constant of the query's SQL
 * and a query compiled once per shape stays right for every reader of that shape.
 */
export interface ReadRule {
  name: string;
  allows: (reader: ReaderShape) => boolean;
}

/** Any caller the server authenticated. */
export const anyCaller: ReadRule = { name: 'any caller', allows: () => true };

/** Members of the administrator group, as readers. */
export const onlyAdministrators: ReadRule = { name: 'administrator', allows: (reader) => reader.administrator };

/**
 * The rules of one resource: who writes it and, for a global resource, who reads it. Reads of a
 * tenant's records need no rule: the tenancy confines them (tenancy.ts).
 */
export type RecordRules = WriteRules & { read?: ReadRule };

/** Members of the administrator group (STRATUM_ADMIN_GROUP). */
export const administrator: Rule<{ caller: Caller }> = {
  name: 'administrator',
  requires: [],
  allows: ({ caller }) => caller.isAdministrator,
  denial: (type) => `Only members of the administrator group may create, update or delete ${type} records.`,
};

/** Administrators, and members of a team of the record's tenant that grants `capability`. */
export function holds(capability: string): Rule {
  return {
    name: `holds ${capability}`,
    requires: [capability],
    allows: async ({ caller, capabilities }) => caller.isAdministrator || (await capabilities()).has(capability),
    denial: (type, tenant) => `Changing ${type} records needs the ${capability} permission in this ${tenant}.`,
  };
}

/**
 * Administrators, members of a team of the record's tenant that grants `capability`, and the groups
 * a grant on the record (or on the record it lives in) gives it to: what one workspace's team access
 * allows there.
 */
export function holdsOrGranted(capability: string): Rule {
  return {
    name: `holds or is granted ${capability}`,
    requires: [capability],
    allows: async ({ caller, capabilities, granted }) =>
      caller.isAdministrator || (await capabilities()).has(capability) || (await granted()).has(capability),
    denial: (type) => `Changing this ${type} needs the ${capability} permission, from a team or from a grant on it.`,
  };
}

/**
 * Administrators, and whoever holds one of `capabilities` from a team of the record's tenant or a
 * grant reaching the record (Terrakube's "manage job": planning or approving jobs).
 */
export function holdsOrGrantedOneOf(capabilities: readonly string[]): Rule {
  const any = (held: ReadonlySet<string>) => capabilities.some((capability) => held.has(capability));
  return {
    name: `holds or is granted one of ${capabilities.join(', ')}`,
    requires: capabilities,
    allows: async ({ caller, capabilities: inTenant, granted }) => caller.isAdministrator || any(await inTenant()) || any(await granted()),
    denial: (type) => `Changing this ${type} needs the ${capabilities.join(' or ')} permission, from a team or from a grant on it.`,
  };
}

/**
 * Nobody, administrators included: records the server alone makes and changes (a job's steps as it
 * runs, a workspace's state versions as Terraform uploads state).
 */
export const serverOnly: Rule<{ caller: Caller }> = {
  name: 'the server alone',
  requires: [],
  allows: () => false,
  denial: (type) =>
    `${type} records are made and changed by the server (as a job runs, or as Terraform uploads state); clients only read them.`,
};

/** The same rule for every write. */
export const writes = (rule: Rule): WriteRules => ({ create: rule, update: rule, delete: rule });

/**
 * Who may write what: one rule per resource and write action, who may read each global resource,
 * and the rules of API tokens. Reads of a tenant's records need no rule here: every such read is
 * confined to the caller's tenants inside its SQL (tenancy.ts). Checked once at start: every
 * resource has its write rules, and every capability they require is one the membership grants;
 * a global resource, which lies in no tenant, has a read rule and requires no capability.
 */
export class PolicyTable {
  private readonly byType: ReadonlyMap<string, RecordRules>;

  constructor(
    registry: Registry,
    rules: Readonly<Record<string, RecordRules>>,
    /** Who may create and revoke API tokens, and administer every one. */
    readonly tokens: TokenRules,
  ) {
    this.byType = new Map(Object.entries(rules));
    const capabilities = new Set(registry.membership?.rules.capabilities ?? []);
    for (const resource of registry.all()) {
      const declared = this.byType.get(resource.type);
      if (declared === undefined) throw new Error(`no write policy for ${resource.type}`);
      const global = registry.isGlobal(resource);
      if (global !== (declared.read !== undefined))
        throw new Error(`${resource.type} ${global ? 'is global and needs' : 'lives in a tenant and takes no'} read rule`);
      for (const rule of [declared.create, declared.update, declared.delete]) {
        const unknown = rule.requires.find((capability) => global || !capabilities.has(capability));
        if (unknown !== undefined) throw new Error(`the write policy of ${resource.type} requires a capability it cannot hold: ${unknown}`);
      }
    }
    for (const type of this.byType.keys())
      if (registry.get(type) === undefined) throw new Error(`a write policy names an undeclared type ${type}`);
  }

  rule(resource: ResourceDeclaration, action: WriteAction): Rule {
    return this.rulesOf(resource)[action];
  }

  /** Who may read the records of a global resource; undefined for a tenant's, which the tenancy confines. */
  readRule(resource: ResourceDeclaration): ReadRule | undefined {
    return this.rulesOf(resource).read;
  }

  /** Every rule, for the API description and the docs. */
  entries(): [string, RecordRules][] {
    return [...this.byType.entries()];
  }

  private rulesOf(resource: ResourceDeclaration): RecordRules {
    const rules = this.byType.get(resource.type);
    if (rules === undefined) throw new Error(`no write policy for ${resource.type}`);
    return rules;
  }
}

/** Refuses (403) a write the rule does not allow. */
export async function authorize<Context extends { caller: Caller }>(
  rule: Rule<Context>,
  context: Context,
  type: string,
  tenant: string,
): Promise<void> {
  if (!(await rule.allows(context))) throw forbidden(rule.denial(type, tenant));
}

/** Who a stored API token belongs to. */
export interface TokenHolder {
  kind: TrackedKind;
  /** The team (directory group) a team token speaks for; null for a personal token. */
  group: string | null;
  /** The subject that created the token. */
  owner: string;
}

/** What a rule about one API token may ask: who calls, and whose token it is. */
export interface TokenContext {
  caller: Caller;
  token: TokenHolder;
}

export interface TokenRules {
  /** Creating a token (a team token: speaking for its team). */
  create: Rule<TokenContext>;
  /** Revoking a token; one the caller may not revoke is as unknown to it as a missing one. */
  revoke: Rule<TokenContext>;
  /** Listing and revoking every token of every owner, live or not. */
  administer: Rule<{ caller: Caller }>;
}
