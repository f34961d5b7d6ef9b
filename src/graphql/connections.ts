import DataLoader from 'dataloader';
import type { GraphQLResolveInfo } from 'graphql';
import { recordKey } from '../engine/index.js';
import {
  publicAttributes,
  type AttributeValue,
  type AttributeValues,
  type ResourceDeclaration,
  type Row,
  type ListingRelationship,
  type Relationship,
  type ToOne,
} from '../model/index.js';
import { valueBytes } from './answer-size.js';
import { listDraft, type FieldArguments } from './arguments.js';
import type { ConnectionValue, NodeValue, RequestContext } from './context.js';
import { asksForTotal } from './selection.js';

/** A root field's records: the caller's visible records of a type, through the engine's list. */
export async function fetchRoot(
  context: RequestContext,
  resource: ResourceDeclaration,
  args: FieldArguments,
  info: GraphQLResolveInfo,
): Promise<ConnectionValue | null> {
  const draft = listDraft(args, asksForTotal(info));
  return context.run(async () => {
    const found = await context.session.list({ resource, ancestors: [] }, draft);
    return { resource, rows: found.rows, offset: found.page.offset, hasMore: found.hasMore, total: found.total };
  });
}

/**
 * The records a relationship of `owner` links. Every record of the answer that asks for the same
 * relationship field waits for one batch, loaded in one query (one per relationship and level,
 * however many records the level holds); a to-many relationship gives each owner its own page.
 */
export function fetchRelated(
  context: RequestContext,
  owner: NodeValue,
  name: string,
  relationship: Relationship,
  args: FieldArguments,
  info: GraphQLResolveInfo,
): Promise<ConnectionValue | null> {
  const field = info.fieldNodes[0];
  if (field === undefined) throw new Error('a field resolved without its node');
  let loader = context.loaders.get(field);
  if (loader === undefined) {
    loader =
      relationship.kind === 'toOne'
        ? toOneLoader(context, owner.resource, name, relationship)
        : toManyLoader(context, relationship, args, asksForTotal(info));
    context.loaders.set(field, loader);
  }
  return loader.load(owner);
}

const byId = { cacheKeyFn: (node: NodeValue) => String(node.row.id) };

function toManyLoader(context: RequestContext, relationship: ListingRelationship, args: FieldArguments, totals: boolean) {
  const { registry } = context;
  const target = registry.target(relationship);
  const draft = listDraft(args, totals);
  const offset = draft.page?.offset?.value ?? 0;
  return new DataLoader<NodeValue, ConnectionValue | null, unknown>(async (owners) => {
    const pages = await context.run(() =>
      context.session.relatedPages(
        relationship,
        owners.map((owner) => String(owner.row.id)),
        draft,
      ),
    );
    return owners.map((owner) => {
      const page = pages?.get(String(owner.row.id));
      return page === undefined ? null : { resource: target, rows: page.rows, offset, hasMore: page.hasMore, total: page.total };
    });
  }, byId);
}

function toOneLoader(context: RequestContext, resource: ResourceDeclaration, name: string, relationship: ToOne) {
  const target = context.registry.target(relationship);
  return new DataLoader<NodeValue, ConnectionValue | null, unknown>(async (owners) => {
    const rows = owners.map((owner) => owner.row);
    const loaded = await context.run(() => context.session.include(resource, rows, { [name]: {} }));
    return rows.map((row) => {
      if (loaded === null) return null;
      const id = row[relationship.column];
      const linked = typeof id === 'string' ? loaded.included.get(recordKey(target.type, id)) : undefined;
      return {
        resource: target,
        rows: linked === undefined ? [] : [linked.row],
        offset: 0,
        hasMore: false,
        total: linked === undefined ? 0 : 1,
      };
    });
  }, byId);
}

/**
 * The edges of a page, admitted into the answer before their fields are resolved: what they will
 * write is counted from the query (every field, under every alias) and from the records' values,
 * so an answer that would grow too large is refused before it does.
 */
export function edgesOf(
  connection: ConnectionValue,
  _args: unknown,
  context: RequestContext,
  info: GraphQLResolveInfo,
): Edge[] | Promise<Edge[]> {
  const { resource, rows } = connection;
  if (resource === undefined || rows.length === 0 || context.overflow !== undefined) return [];
  const edges = rows.map((row) => ({ node: { resource, row } }));
  const placement = context.placementAt(resource, info);
  let bytes = 0;
  for (const { node } of edges) {
    bytes += placement.fixed + placement.ids * valueBytes(String(node.row.id));
    for (const [name, times] of placement.attributes) bytes += times * valueBytes(attributeOf(node, name));
  }
  return context.admit(rows, bytes, info).then((admitted) => (admitted ? edges : []));
}

interface Edge {
  node: NodeValue;
}

/** Offset paging as Elide answers it: the cursors are offsets, `after` takes the end cursor. */
export function pageInfoOf(connection: ConnectionValue) {
  return {
    hasNextPage: connection.hasMore,
    hasPreviousPage: connection.offset > 0,
    startCursor: String(connection.offset),
    endCursor: String(connection.offset + connection.rows.length),
    totalRecords: connection.total ?? null,
  };
}

const publicViews = new WeakMap<Row, AttributeValues>();

/** An attribute as any reader may see it (a secret is null), the public view built once per record. */
export function attributeOf(node: NodeValue, name: string): AttributeValue | undefined {
  let view = publicViews.get(node.row);
  if (view === undefined) {
    view = publicAttributes(node.resource, node.row);
    publicViews.set(node.row, view);
  }
  return view[name];
}
