import type { CollectionAddress, RecordAddress } from '../engine/index.js';
import {
  allOperations,
  type ManyToMany,
  type Operation,
  type Registry,
  type ResourceDeclaration,
  type ToMany,
  type ToOne,
} from '../model/index.js';

export const apiPrefix = '/api/v1';

/** One resource as mounted at one path. */
export interface Mount {
  resource: ResourceDeclaration;
  /** The resources whose ids the path names before the record's own, outermost first. */
  ancestors: readonly ResourceDeclaration[];
  /**
   * Set when the record is reached through another record's to-one relationship
   * (`/workspace/{id}/vcs/{vcsId}`): that record's mount, the relationship, and the path parameter
   * of the linked record's id.
   */
  through?: { mount: Mount; relationship: ToOne; parameter: string };
  /**
   * Set when the records are those of the parent linked to a record beside them, under that
   * record's path (`/organization/{id}/workspace/{workspaceId}/notificationConfiguration`): that
   * record's mount and the relationship that links it.
   */
  linked?: { mount: Mount; relationship: string };
  /** Set when the records are those a record's many-to-many relationship lists, under that record's path. */
  listedBy?: { mount: Mount; relationship: ManyToMany };
  /**
   * Set when its parent holds at most one of these records (a workspace's webhook), linked as a
   * to-one: a GET of the collection path answers that record or null, as a to-one related read.
   */
  single?: true;
}

export type RouteKind = Operation | 'readRelated' | 'readRelationship' | 'updateRelationship' | 'changeRelationshipMembers';

interface RouteBase {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  mount: Mount;
}

/** One method on one path: what the router and the API description share. */
export type Route =
  | (RouteBase & { kind: Exclude<RouteKind, 'readRelated'> })
  /** A related-record route, and the to-one relationship it follows. */
  | (RouteBase & { kind: 'readRelated'; relationship: { name: string; link: ToOne } });

const operationRoutes: Record<Operation, { method: Route['method']; onRecord: boolean }> = {
  list: { method: 'GET', onRecord: false },
  create: { method: 'POST', onRecord: false },
  read: { method: 'GET', onRecord: true },
  update: { method: 'PATCH', onRecord: true },
  delete: { method: 'DELETE', onRecord: true },
};

/** The path parameter of a resource's record id. */
export const idParameter = (resource: ResourceDeclaration) => `${resource.type}Id`;

/**
 * Every route of the API, derived from the declarations. A resource is mounted under its parent's
 * record path (`/organization/{organizationId}/template/{templateId}`), and also at the root when it
 * declares so; its children follow it to every place it is mounted. Each record path also serves
 * its relationships (`/relationships/{name}`) and the records its to-one relationships link (`/vcs`,
 * `/vcs/{vcsId}`).
 */
export function routesOf(registry: Registry): Route[] {
  const routes: Route[] = [];
  const mountAt = (resource: ResourceDeclaration, ancestors: ResourceDeclaration[], base: string, operations: readonly Operation[]) => {
    const mount: Mount = heldOnce(registry, resource, ancestors.at(-1)) ? { resource, ancestors, single: true } : { resource, ancestors };
    const collectionPath = `${base}/${segmentOf(registry, resource, ancestors.at(-1))}`;
    const recordPath = `${collectionPath}/:${idParameter(resource)}`;
    for (const kind of operations) {
      const { method, onRecord } = operationRoutes[kind];
      routes.push({ method, path: onRecord ? recordPath : collectionPath, kind, mount });
    }
    const relationshipPath = `${recordPath}/relationships/:relationship`;
    routes.push({ method: 'GET', path: relationshipPath, kind: 'readRelationship', mount });
    // A record clients only read has no relationship to change either.
    if (operations.includes('update'))
      routes.push(
        { method: 'PATCH', path: relationshipPath, kind: 'updateRelationship', mount },
        // JSON:API adds members to a relationship with POST and removes them with DELETE.
        { method: 'POST', path: relationshipPath, kind: 'changeRelationshipMembers', mount },
        { method: 'DELETE', path: relationshipPath, kind: 'changeRelationshipMembers', mount },
      );
    for (const [name, link] of Object.entries(resource.relationships)) {
      if (link.kind === 'manyToMany') {
        // The records it lists, as a list of their own; they are created and deleted where they live.
        const listed: Mount = { resource: registry.target(link), ancestors: [], listedBy: { mount, relationship: link } };
        routes.push({ method: 'GET', path: `${recordPath}/${name}`, kind: 'list', mount: listed });
      }
      if (link.kind !== 'toOne') continue;
      const target = registry.target(link);
      routes.push({ method: 'GET', path: `${recordPath}/${name}`, kind: 'readRelated', mount, relationship: { name, link } });
      // The linked record as a record of its own, as `/workspace/{id}/vcs/{vcsId}` serves it; not for
      // the parent, which has its own path.
      if (name === resource.parent) continue;
      // Named after the linked type, unless the path already names a record of that type.
      const parameter = recordPath.includes(`/:${idParameter(target)}`) ? 'relatedId' : idParameter(target);
      const linked: Mount = { resource: target, ancestors: [], through: { mount, relationship: link, parameter } };
      for (const kind of (['read', 'update', 'delete'] as const).filter((k) => (target.operations ?? allOperations).includes(k))) {
        routes.push({ method: operationRoutes[kind].method, path: `${recordPath}/${name}/:${parameter}`, kind, mount: linked });
      }
    }
    for (const child of registry.childrenOf(resource))
      mountAt(child, [...ancestors, resource], recordPath, child.operations ?? allOperations);
    for (const [name, relationship] of linkedCollections(registry, resource, ancestors.at(-1))) {
      const linked: Mount = {
        resource: registry.target(relationship.listing),
        ancestors,
        linked: { mount, relationship: relationship.link },
      };
      for (const kind of (['list', 'create'] as const).filter((k) => (linked.resource.operations ?? allOperations).includes(k)))
        routes.push({ method: operationRoutes[kind].method, path: `${recordPath}/${name}`, kind, mount: linked });
    }
  };
  for (const resource of registry.all()) {
    if (resource.parent === undefined) mountAt(resource, [], apiPrefix, resource.operations ?? allOperations);
    else if (resource.atRoot !== undefined) mountAt(resource, [], apiPrefix, resource.atRoot);
  }
  return routes;
}

/**
 * The to-many relationships of a resource that list records living beside it, under the same
 * parent, and linking it through a to-one relationship of theirs (a workspace's notification
 * configurations, records of its organization): listed and created under the resource's path too.
 */
function linkedCollections(
  registry: Registry,
  resource: ResourceDeclaration,
  parent: ResourceDeclaration | undefined,
): [string, { listing: ToMany; link: string }][] {
  if (parent === undefined) return [];
  return Object.entries(resource.relationships).flatMap(([name, listing]): [string, { listing: ToMany; link: string }][] => {
    if (listing.kind !== 'toMany') return [];
    const target = registry.target(listing);
    if (registry.parentOf(target) !== parent) return [];
    const link = Object.entries(target.relationships).find(
      ([linkName, r]) => linkName !== target.parent && r.kind === 'toOne' && r.type === resource.type && r.column === listing.column,
    );
    return link === undefined ? [] : [[name, { listing, link: link[0] }]];
  });
}

/** The parent's to-many relationship that lists a resource's records, by name; undefined at the root or when it lists none. */
function parentListing(
  registry: Registry,
  resource: ResourceDeclaration,
  parent: ResourceDeclaration | undefined,
): [string, ToMany] | undefined {
  const link = registry.parentLink(resource);
  if (parent === undefined || link === undefined) return undefined;
  for (const [name, r] of Object.entries(parent.relationships))
    if (r.kind === 'toMany' && r.type === resource.type && r.column === link.column) return [name, r];
  return undefined;
}

/** Whether the parent's relationship that lists a resource's records holds at most one. */
function heldOnce(registry: Registry, resource: ResourceDeclaration, parent: ResourceDeclaration | undefined): boolean {
  return parentListing(registry, resource, parent)?.[1].atMostOne === true;
}

/**
 * The path segment of a resource's records under a parent record: the name of the parent's to-many
 * relationship that lists them, as Elide nests paths (`/workspace/{id}/workspaceTag` lists
 * `workspacetag` records); its type at the root, or when the parent does not list it.
 */
function segmentOf(registry: Registry, resource: ResourceDeclaration, parent: ResourceDeclaration | undefined): string {
  return parentListing(registry, resource, parent)?.[0] ?? resource.type;
}

type Params = Readonly<Record<string, string | undefined>>;

/** The collection a collection path names. */
export function collectionAt(mount: Mount, params: Params): CollectionAddress {
  const collection = {
    resource: mount.resource,
    ancestors: mount.ancestors.map((resource) => ({ resource, id: params[idParameter(resource)] ?? '' })),
  };
  if (mount.listedBy !== undefined)
    return { ...collection, listedBy: { relationship: mount.listedBy.relationship, record: recordAt(mount.listedBy.mount, params) } };
  if (mount.linked === undefined) return collection;
  return { ...collection, linked: { relationship: mount.linked.relationship, record: recordAt(mount.linked.mount, params) } };
}

/** The record a record path names. */
export function recordAt(mount: Mount, params: Params): RecordAddress {
  if (mount.through !== undefined) {
    const { through } = mount;
    return {
      resource: mount.resource,
      through: { record: recordAt(through.mount, params), relationship: through.relationship },
      id: params[through.parameter] ?? '',
    };
  }
  return { ...collectionAt(mount, params), id: params[idParameter(mount.resource)] ?? '' };
}
