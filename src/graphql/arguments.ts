import { createComparisonNode, createLogicNode, createSelectorNode, createValueNode, type ExpressionNode } from '@rsql/ast';
import { defaultPageSize, maxPageSize, type Filter, type Page, type SortKey } from '../engine/options.js';
import { ApiError, badArgument } from '../errors.js';
import { maySecret, type Registry, type ResourceDeclaration } from '../model/index.js';
import { parseFilter } from '../rsql/parse.js';

/** Elide's operations on a list of records or a relationship (REPLACE is not offered). */
export const operations = ['FETCH', 'UPSERT', 'UPDATE', 'DELETE', 'REMOVE'] as const;
export type Operation = (typeof operations)[number];

export type InputRecord = Record<string, unknown>;

/** The arguments of a root or relationship field, as GraphQL coerced them. */
export interface FieldArguments {
  op?: Operation;
  ids?: readonly (string | null)[] | null;
  filter?: string | null;
  sort?: string | null;
  first?: string | number | null;
  after?: string | number | null;
  data?: readonly InputRecord[] | InputRecord | null;
}

/** A list's query: the filter (with `ids`), the order and the page. */
export interface ListRequest {
  filter: Filter | undefined;
  sort: SortKey[];
  page: Page;
}

const given = (value: unknown) => value !== undefined && value !== null;
const refused = (argument: string, detail: string) => new ApiError(400, { code: 'invalid_argument', detail, at: { argument } });

/**
 * The operation a field asks for, checked as Elide checks it: writes only in a mutation, without
 * paging, filtering or sorting; FETCH without data; UPSERT and UPDATE with data and without ids;
 * DELETE and REMOVE with ids (a to-one relationship names its record itself) and without data.
 */
export function operationOf(args: FieldArguments, mutation: boolean, toOne: boolean): Operation {
  const op = args.op ?? 'FETCH';
  if (op !== 'FETCH') {
    if (!mutation) throw refused('op', 'Data model writes are only allowed in mutations.');
    if (given(args.filter) || given(args.sort) || given(args.first) || given(args.after)) {
      throw refused('op', 'Pagination, filtering and sorting are only supported with FETCH.');
    }
  }
  if (args.ids !== undefined && args.ids !== null) {
    if (args.ids.length === 0) throw refused('ids', 'ids must name at least one record.');
    if (args.ids.includes(null)) throw refused('ids', 'ids must not hold null.');
  }
  switch (op) {
    case 'FETCH':
      if (given(args.data)) throw refused('data', 'FETCH must not include data.');
      break;
    case 'UPSERT':
    case 'UPDATE':
      if (given(args.ids)) throw refused('ids', `${op} must not include ids; give each record's id in data.`);
      if (!given(args.data)) throw refused('data', `${op} must include data.`);
      break;
    case 'DELETE':
    case 'REMOVE':
      if (given(args.data)) throw refused('data', `${op} must not include data.`);
      if (!given(args.ids) && !toOne) throw refused('ids', `${op} must include ids.`);
      break;
  }
  return op;
}

/** The records of `data`, as a list: GraphQL takes a single object where a list is declared. */
export function dataRecords(args: FieldArguments): readonly InputRecord[] {
  const data = args.data;
  if (data === undefined || data === null) return [];
  return Array.isArray(data) ? (data as readonly InputRecord[]) : [data as InputRecord];
}

export const idsOf = (args: FieldArguments): string[] => (args.ids ?? []).filter((id): id is string => id !== null);

/**
 * A list's `ids`, `filter`, `sort`, `first` and `after`, read against the declaration with the
 * JSON:API list's rules: RSQL within its limits, no filter or order on a secret, pages of at most
 * the maximum size. `ids` is a filter like any other: an id that names no record the caller may
 * see matches nothing.
 */
export function listRequest(registry: Registry, resource: ResourceDeclaration, args: FieldArguments, totals: boolean): ListRequest {
  let expression: ExpressionNode | undefined = given(args.filter) ? parseFilter('filter', args.filter ?? '') : undefined;
  const ids = idsOf(args);
  if (ids.length > 0) {
    const byId = createComparisonNode(createSelectorNode('id', true), '=in=', createValueNode(ids, true));
    expression = expression === undefined ? byId : createLogicNode(byId, ';', expression);
  }
  return {
    filter: expression === undefined ? undefined : { expression, parameter: 'filter' },
    sort: parseSort(registry, resource, args.sort),
    page: {
      offset: readInteger('after', args.after, 0, Number.MAX_SAFE_INTEGER, 0),
      limit: readInteger('first', args.first, 1, maxPageSize, defaultPageSize),
      totals,
    },
  };
}

/** `sort: "name,-createdDate"`: attributes (or id), `-` for descending; a secret cannot order a list. */
function parseSort(registry: Registry, resource: ResourceDeclaration, text: string | null | undefined): SortKey[] {
  if (text === undefined || text === null || text === '') return [];
  return text.split(',').map((part) => {
    const descending = part.startsWith('-');
    const attribute = part.replace(/^[-+]/, '');
    const declared = registry.attribute(resource, attribute);
    if (attribute !== 'id' && declared === undefined)
      throw badArgument('sort', `${resource.type} has no attribute ${attribute} to sort by.`);
    if (maySecret(declared)) throw badArgument('sort', `${resource.type}.${attribute} may hold a secret and cannot be sorted by.`);
    return { attribute, descending };
  });
}

/** `first` and `after` are integers, given as numbers or strings (Elide's StringOrInt); `after` is an offset. */
function readInteger(name: string, value: string | number | null | undefined, min: number, max: number, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  const text = String(value);
  const number = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    throw badArgument(name, `${name} must be an integer from ${min} to ${max}.`);
  }
  return number;
}
