import type { Attribute } from './attributes.js';
import { columnOf } from './columns.js';
import type { Grant, Membership, ResourceDeclaration } from './declaration.js';
import type { Relationship, ToOne } from './relationships.js';

/**
 * Names that existing clients send or ask for beyond the declarations: read-only attributes they
 * echo back in bodies (ignored), and relationships not modeled yet (accepted as null, included as
 * nothing, read as empty).
 */
export interface ClientConventions {
  echoedReadOnly: readonly string[];
  unmodeledRelationships: Readonly<Record<string, 'toOne' | 'toMany'>>;
}

/**
 * One way grants reach the records of a resource: the records of `grant` whose parent is the record
 * named by the reached record's `column` (`id` when the grant lives under the reached record itself,
 * else the column of its `through` relationship).
 */
export interface GrantReach {
  grant: ResourceDeclaration;
  rules: Grant;
  column: string;
  through?: string;
}

/**
 * Every declared resource, checked once when the service starts: each link (and each attribute
 * that holds a record's id) names a declared type, exactly one resource is the tenant, and every
 * other one reaches it, or a global resource, through its parents. Lookups by name are own-property only, so a
 * client-chosen name can never reach a built-in property.
 */
export class Registry {
  private readonly byType = new Map<string, ResourceDeclaration>();
  private readonly echoed: ReadonlySet<string>;
  private readonly unmodeledByName: ReadonlyMap<string, 'toOne' | 'toMany'>;
  readonly tenant: ResourceDeclaration;
  /** The resource whose records grant permissions inside a tenant, and how. */
  readonly membership: { resource: ResourceDeclaration; rules: Membership } | undefined;
  /** The resources whose records grant capabilities on single records, and how. */
  readonly grants: readonly { resource: ResourceDeclaration; rules: Grant }[];
  private readonly reachesByType = new Map<string, GrantReach[]>();

  constructor(declarations: readonly ResourceDeclaration[], conventions: ClientConventions) {
    for (const declaration of declarations) {
      if (this.byType.has(declaration.type)) throw new Error(`resource ${declaration.type} is declared twice`);
      this.byType.set(declaration.type, declaration);
    }
    this.echoed = new Set(conventions.echoedReadOnly);
    this.unmodeledByName = new Map(Object.entries(conventions.unmodeledRelationships));
    const tenants = declarations.filter((d) => d.tenant === true);
    if (tenants.length !== 1 || tenants[0] === undefined) throw new Error('exactly one resource must be the tenant');
    this.tenant = tenants[0];
    const members = declarations.filter((d) => d.membership !== undefined);
    if (members.length > 1) throw new Error('at most one resource may declare membership');
    const member = members[0];
    this.membership = member?.membership === undefined ? undefined : { resource: member, rules: member.membership };
    this.grants = declarations.flatMap((d) => (d.grant === undefined ? [] : [{ resource: d, rules: d.grant }]));
    for (const declaration of declarations) this.check(declaration);
    for (const grant of this.grants) this.checkGrant(grant.resource, grant.rules);
    for (const declaration of declarations) this.checkReadFlag(declaration);
  }

  all(): IterableIterator<ResourceDeclaration> {
    return this.byType.values();
  }

  get(type: string): ResourceDeclaration | undefined {
    return this.byType.get(type);
  }

  /** The declaration a relationship links, which the constructor checked exists. */
  target(relationship: Relationship): ResourceDeclaration {
    const target = this.byType.get(relationship.type);
    if (target === undefined) throw new Error(`undeclared type ${relationship.type}`);
    return target;
  }

  attribute(resource: ResourceDeclaration, name: string): Attribute | undefined {
    return Object.hasOwn(resource.attributes, name) ? resource.attributes[name] : undefined;
  }

  relationship(resource: ResourceDeclaration, name: string): Relationship | undefined {
    return Object.hasOwn(resource.relationships, name) ? resource.relationships[name] : undefined;
  }

  /** The link to the record a resource lives under in paths. */
  parentLink(resource: ResourceDeclaration): ToOne | undefined {
    if (resource.parent === undefined) return undefined;
    return resource.relationships[resource.parent] as ToOne;
  }

  /** The column naming the record a resource lives under: for reading a record's children. */
  parentColumn(resource: ResourceDeclaration): string {
    const link = this.parentLink(resource);
    if (link === undefined) throw new Error(`${resource.type} has no parent`);
    return link.column;
  }

  parentOf(resource: ResourceDeclaration): ResourceDeclaration | undefined {
    const link = this.parentLink(resource);
    return link === undefined ? undefined : this.target(link);
  }

  childrenOf(resource: ResourceDeclaration): ResourceDeclaration[] {
    return [...this.byType.values()].filter((child) => child.parent !== undefined && this.parentOf(child) === resource);
  }

  /** The to-one links a record belongs to (its parent among them): it is hidden while any of them is. */
  belongsTo(resource: ResourceDeclaration): [string, ToOne][] {
    return Object.entries(resource.relationships).filter(
      (entry): entry is [string, ToOne] => entry[1].kind === 'toOne' && entry[1].onDelete !== 'set null',
    );
  }

  /** How grants reach the records of a resource; none for most. */
  reachesOf(resource: ResourceDeclaration): readonly GrantReach[] {
    return this.reachesByType.get(resource.type) ?? [];
  }

  /** The to-one relationships of a resource through which grants reach its records: changing one moves the record in or out of their reach. */
  grantingLinks(resource: ResourceDeclaration): string[] {
    const links = this.reachesOf(resource).flatMap((reach) => (reach.through === undefined ? [] : [reach.through]));
    return resource.grantsThrough === undefined ? links : [...links, resource.grantsThrough];
  }

  /** A read-only attribute name that clients send back and that is ignored on input. */
  isEchoedReadOnly(name: string): boolean {
    return this.echoed.has(name);
  }

  /** The kind of a relationship name that clients use but Stratum does not model yet. */
  unmodeled(name: string): 'toOne' | 'toMany' | undefined {
    return this.unmodeledByName.get(name);
  }

  /** Every relationship name that clients use but Stratum does not model yet, with its kind. */
  unmodeledRelationships(): [string, 'toOne' | 'toMany'][] {
    return [...this.unmodeledByName];
  }

  /** Whether a record of this resource belongs to the whole service rather than to a tenant: its root is global. */
  isGlobal(resource: ResourceDeclaration): boolean {
    return this.rootOf(resource).global === true;
  }

  /** The resource at the top of a resource's parents: the tenant, or a global resource. */
  private rootOf(resource: ResourceDeclaration): ResourceDeclaration {
    let at = resource;
    for (let parent = this.parentOf(at); parent !== undefined; parent = this.parentOf(at)) at = parent;
    return at;
  }

  /**
   * A resource reaches the tenant or a global resource through its parents, and links only records
   * of the same kind: a global record belongs to no tenant, so links between the two could not stay
   * inside one tenant.
   */
  private checkScope(resource: ResourceDeclaration): void {
    const where = `resource ${resource.type}`;
    const seen = new Set<ResourceDeclaration>();
    for (let at: ResourceDeclaration | undefined = resource; at !== this.tenant && at?.global !== true; at = this.parentOf(at)) {
      if (at === undefined || seen.has(at)) throw new Error(`${where} does not reach the tenant or a global resource through its parents`);
      if (at.parent !== undefined && this.relationship(at, at.parent)?.kind !== 'toOne') {
        throw new Error(`resource ${at.type}: parent ${at.parent} is not a to-one relationship`);
      }
      seen.add(at);
    }
    const global = this.isGlobal(resource);
    for (const [name, relationship] of Object.entries(resource.relationships)) {
      if (relationship.kind !== 'toMany' && this.isGlobal(this.target(relationship)) !== global)
        throw new Error(`${where}: ${name} links ${global ? 'a tenant' : 'a global'} resource`);
    }
    for (const [name, attribute] of Object.entries(resource.attributes)) {
      for (const type of attribute.kind === 'text' ? [attribute.idOf, attribute.idsOf] : []) {
        const target = type === undefined ? undefined : this.byType.get(type);
        if (target !== undefined && (global || this.isGlobal(target))) throw new Error(`${where}: ${name} holds ids across tenants`);
      }
    }
  }

  /**
   * A grant lives under a record directly in the tenant, gives capabilities a membership gives, and
   * reaches other records only through a to-one link to its parent from a resource directly in the
   * tenant: so that reading a record reached by a grant asks only about the record itself.
   */
  private checkGrant(resource: ResourceDeclaration, rules: Grant): void {
    const where = `resource ${resource.type}`;
    const parent = this.parentOf(resource);
    if (parent === undefined || this.parentOf(parent) !== this.tenant)
      throw new Error(`${where}: a grant lives under a record of the tenant`);
    const capabilities = new Set(this.membership?.rules.capabilities ?? []);
    for (const name of [rules.groupAttribute, ...rules.capabilities]) {
      if (this.attribute(resource, name) === undefined) throw new Error(`${where}: the grant names no attribute ${name}`);
    }
    const unknown = rules.capabilities.find((capability) => !capabilities.has(capability));
    if (unknown !== undefined) throw new Error(`${where}: the grant gives ${unknown}, which no membership grants`);
    const reach = (type: string, entry: GrantReach) => this.reachesByType.set(type, [...(this.reachesByType.get(type) ?? []), entry]);
    reach(parent.type, { grant: resource, rules, column: 'id' });
    for (const { type, through } of rules.reaches ?? []) {
      const reached = this.byType.get(type);
      const link = reached === undefined ? undefined : this.relationship(reached, through);
      if (reached === undefined || this.parentOf(reached) !== this.tenant || link?.kind !== 'toOne' || link.type !== parent.type)
        throw new Error(`${where}: reaches ${type} through ${through}, which is not a link of a record of the tenant to a ${parent.type}`);
      reach(type, { grant: resource, rules, column: link.column, through });
    }
  }

  /**
   * Records gated by a membership flag are read through the membership alone: no grant may reach
   * them, or a grant holder outside the flagged teams would read them.
   */
  private checkReadFlag(resource: ResourceDeclaration): void {
    if (resource.readFlag === undefined) return;
    const where = `resource ${resource.type}`;
    const membership = this.membership?.resource;
    if (membership === undefined || this.attribute(membership, resource.readFlag)?.kind !== 'boolean')
      throw new Error(`${where}: its read flag ${resource.readFlag} is not a boolean attribute of the membership`);
    if (
      this.isGlobal(resource) ||
      resource.readByGrantHolders === true ||
      resource.grantsThrough !== undefined ||
      this.reachesOf(resource).length > 0
    )
      throw new Error(`${where}: records read by a membership flag live in a tenant and are reached by no grant`);
  }

  private check(resource: ResourceDeclaration): void {
    const where = `resource ${resource.type}`;
    for (const relationship of Object.values(resource.relationships)) {
      if (!this.byType.has(relationship.type)) throw new Error(`${where} links an undeclared type ${relationship.type}`);
      if (relationship.kind === 'toOne' && relationship.attribute !== undefined) {
        const mirror = this.attribute(resource, relationship.attribute);
        if (mirror?.kind !== 'text' || mirror.readOnly || columnOf(relationship.attribute) !== relationship.column)
          throw new Error(`${where}: ${relationship.attribute} must be a writable text attribute stored in ${relationship.column}`);
      }
    }
    for (const [name, attribute] of Object.entries(resource.attributes)) {
      for (const type of attribute.kind === 'text' ? [attribute.idOf, attribute.idsOf] : [])
        if (type !== undefined && !this.byType.has(type)) throw new Error(`${where}: ${name} holds ids of an undeclared type ${type}`);
    }
    if (resource.tenant === true && resource.parent !== undefined) throw new Error(`${where}: the tenant has no parent`);
    if (resource.global === true && (resource.parent !== undefined || resource.tenant === true))
      throw new Error(`${where}: a global resource has no parent and is not the tenant`);
    this.checkScope(resource);
    if (
      resource.clientIds !== undefined &&
      (resource.tenant === true || (this.childrenOf(resource).length > 0 && resource.clientIds.uuids !== true))
    )
      throw new Error(`${where}: only a resource without children, or whose clients choose UUIDs, may take ids from clients`);
    for (const name of resource.atomicForms?.relationshipsBesideData ?? []) {
      if (this.relationship(resource, name)?.kind !== 'toMany')
        throw new Error(`${where}: relationships beside data name ${name}, which is not a to-many relationship`);
    }
    if (resource.grantsThrough !== undefined) {
      const link = this.relationship(resource, resource.grantsThrough);
      if (
        link?.kind !== 'toOne' ||
        !link.required ||
        resource.grantsThrough === resource.parent ||
        this.target(link).grantsThrough !== undefined
      )
        throw new Error(
          `${where}: grants come through ${resource.grantsThrough}, which must be a required to-one link other than the parent, to a record with grants of its own`,
        );
    }
    if (resource.clientIds !== undefined && resource.sequenceIds === true)
      throw new Error(`${where}: ids come from clients or from a sequence, not both`);
    if (resource.softDelete !== undefined && this.attribute(resource, resource.softDelete)?.kind !== 'boolean') {
      throw new Error(`${where}: softDelete ${resource.softDelete} is not a boolean attribute`);
    }
    for (const name of (resource.indexes ?? []).flat()) {
      if (this.attribute(resource, name) === undefined) throw new Error(`${where}: index on ${name}, which is not an attribute`);
    }
    if (resource.indexes !== undefined && resource.parent === undefined) throw new Error(`${where}: indexes are declared under a parent`);
    for (const name of resource.unique ?? []) {
      if (this.attribute(resource, name) === undefined) throw new Error(`${where}: unique ${name} is not an attribute`);
    }
    if (resource.membership !== undefined) {
      if (this.parentOf(resource) !== this.tenant || this.isGlobal(resource))
        throw new Error(`${where}: membership records live directly under the tenant`);
      for (const name of [resource.membership.groupAttribute, ...resource.membership.capabilities]) {
        if (this.attribute(resource, name) === undefined) throw new Error(`${where}: membership names no attribute ${name}`);
      }
    }
  }
}
