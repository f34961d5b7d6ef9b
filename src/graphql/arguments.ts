import type { Argument, ListDraft } from '../engine/index.js';
import { ApiError, badArgument } from '../errors.js';

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
 * A list's `ids`, `filter`, `sort`, `first` and `after` as the engine takes them: the engine reads
 * them against the declaration with the JSON:API list's rules. `ids` is a filter like any other:
 * an id that names no record the caller may see matches nothing. `first` and `after` are
 * integers, given as numbers or strings (Elide's StringOrInt); `after` is an offset.
 */
export function listDraft(args: FieldArguments, totals: boolean): ListDraft {
  const draft: ListDraft = { page: { totals } };
  if (given(args.filter)) draft.filter = { name: 'filter', value: args.filter ?? '' };
  if (given(args.sort)) draft.sort = { name: 'sort', value: args.sort ?? '' };
  const ids = idsOf(args);
  if (ids.length > 0) draft.ids = { name: 'ids', value: ids };
  const limit = wholeNumber('first', args.first);
  const offset = wholeNumber('after', args.after);
  if (limit !== undefined) draft.page = { ...draft.page, limit };
  if (offset !== undefined) draft.page = { ...draft.page, offset };
  return draft;
}

function wholeNumber(name: string, value: string | number | null | undefined): Argument<number> | undefined {
  if (value === undefined || value === null) return undefined;
  const text = String(value);
  if (!/^\d+$/.test(text)) throw badArgument(name, `${name} must be a whole number.`);
  return { name, value: Number(text) };
}
