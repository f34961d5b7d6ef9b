import { createComparisonNode, createLogicNode, createSelectorNode, createValueNode } from '@rsql/ast';
import { badArgument } from '../errors.js';
import { maySecret, type Registry, type ResourceDeclaration } from '../model/index.js';
import { parseFilter, type ExpressionNode } from '../rsql/parse.js';
import { defaultPageSize, maxPageSize, type Filter, type IncludeTree, type ListOptions, type Page, type SortKey } from './options.js';

/** An argument as a transport received it: the name it goes by there, and its value. */
export interface Argument<T = string> {
  name: string;
  value: T;
}

/**
 * A list's arguments as a transport read them out of its syntax (query parameters, GraphQL
 * arguments), not yet checked against the declaration: the engine does that, the same for every
 * transport.
 */
export interface ListDraft {
  /** RSQL over the listed records. */
  filter?: Argument;
  /** Only the records with these ids: a filter like any other. */
  ids?: Argument<readonly string[]>;
  /** RSQL over every included list of a type, by type. */
  filtersByType?: ReadonlyMap<string, Argument>;
  /** `name,-createdDate`: attributes (or id), `-` for descending. */
  sort?: Argument;
  page?: PageDraft;
  include?: IncludeTree;
}

/** Where a page starts and how long it is, each left out for its default; `totals` counts every record too. */
export interface PageDraft {
  offset?: Argument<number>;
  limit?: Argument<number>;
  totals?: boolean;
}

/** The most keys one order takes: an index serves a few, and each key is a term the database sorts by. */
export const maxSortKeys = 8;
/** The most ids one list may name: each is a value bound into the query. */
export const maxIds = 1000;

/** A list's options, each argument checked against the declaration of the records it lists. */
export function listOptions(registry: Registry, resource: ResourceDeclaration, draft: ListDraft): ListOptions {
  const filtersByType = new Map<string, Filter>();
  for (const [type, argument] of draft.filtersByType ?? [])
    filtersByType.set(type, { expression: parseFilter(argument.name, argument.value), parameter: argument.name });
  return {
    filter: listFilter(draft),
    filtersByType,
    sort: sortKeys(registry, resource, draft.sort),
    page: pageOf(draft.page),
    include: draft.include ?? {},
  };
}

/** The filter of the listed records: `filter`, and `ids` as an `id=in=(...)` beside it. */
function listFilter({ filter, ids }: ListDraft): Filter | undefined {
  let expression: ExpressionNode | undefined = filter === undefined ? undefined : parseFilter(filter.name, filter.value);
  if (ids !== undefined) {
    if (ids.value.length > maxIds)
      throw badArgument(ids.name, `${ids.name} names at most ${maxIds} records; read the rest with another request.`);
    const byId = createComparisonNode(createSelectorNode('id', true), '=in=', createValueNode([...ids.value], true));
    expression = expression === undefined ? byId : createLogicNode(byId, ';', expression);
  }
  return expression === undefined ? undefined : { expression, parameter: filter?.name ?? 'filter' };
}

/** An order: declared attributes (or the id), each once, none that may hold a secret (an order reveals one as a filter would). */
export function sortKeys(registry: Registry, resource: ResourceDeclaration, sort: Argument | undefined): SortKey[] {
  if (sort === undefined || sort.value === '') return [];
  const { name } = sort;
  const parts = sort.value.split(',', maxSortKeys + 1);
  if (parts.length > maxSortKeys) throw badArgument(name, `${name} takes at most ${maxSortKeys} keys.`);
  const seen = new Set<string>();
  return parts.map((part) => {
    const descending = part.startsWith('-');
    const attribute = part.replace(/^[-+]/, '');
    const declared = registry.attribute(resource, attribute);
    if (attribute !== 'id' && declared === undefined) throw badArgument(name, `${resource.type} has no attribute ${attribute} to sort by.`);
    if (maySecret(declared)) throw badArgument(name, `${resource.type}.${attribute} may hold a secret and cannot be sorted by.`);
    if (seen.has(attribute)) throw badArgument(name, `${name} names ${attribute} more than once.`);
    seen.add(attribute);
    return { attribute, descending };
  });
}

/** A page within the bounds: at most `maxPageSize` records, from an offset a number can hold. */
export function pageOf(draft: PageDraft | undefined): Page {
  const { offset, limit } = draft ?? {};
  if (limit !== undefined && (!Number.isSafeInteger(limit.value) || limit.value < 1 || limit.value > maxPageSize)) {
    throw badArgument(limit.name, `${limit.name} must be a whole number from 1 to ${maxPageSize}.`);
  }
  if (offset !== undefined && (!Number.isSafeInteger(offset.value) || offset.value < 0)) {
    throw badArgument(offset.name, `${offset.name} is past the last record a list can have.`);
  }
  return { offset: offset?.value ?? 0, limit: limit?.value ?? defaultPageSize, totals: draft?.totals ?? false };
}
