import { badArgument } from '../errors.js';
import {
  defaultPageSize,
  maxPageSize,
  type Filter,
  type IncludeTree,
  type ListOptions,
  type Page,
  type ReadOptions,
  type SortKey,
} from '../engine/options.js';
import { maySecret, type Registry, type ResourceDeclaration } from '../model/index.js';
import { parseFilter } from '../rsql/parse.js';
import type { Fieldsets } from './serialize.js';

/** A page as the client asked for it: links and meta answer in the same style. */
export interface PageRequest extends Page {
  style: 'number' | 'offset';
  /** Whether any page parameter was sent; meta.page is only given then. */
  requested: boolean;
}

/** The query of a single-record request: what to include, and the sparse fieldsets. */
export interface ReadQuery {
  options: ReadOptions;
  fields: Fieldsets;
}

export interface ListQuery extends ReadQuery {
  options: ListOptions;
  page: PageRequest;
}

type RawQuery = Readonly<Record<string, string | string[] | undefined>>;

/** The query of a single-record request: only `include` and `fields` apply. */
export function parseReadQuery(raw: RawQuery, resource: ResourceDeclaration, registry: Registry): ReadQuery {
  const query = single(raw);
  for (const key of Object.keys(query)) {
    if (key !== 'include' && !/^fields\[[^\]]+\]$/.test(key)) {
      throw badArgument(key, `Unknown query parameter ${key}; a single record takes include and fields[TYPE].`);
    }
  }
  return {
    options: { include: parseInclude(query.include, resource, registry), filtersByType: new Map() },
    fields: parseFields(query, registry),
  };
}

/** The query of a list request. */
export function parseListQuery(raw: RawQuery, resource: ResourceDeclaration, registry: Registry): ListQuery {
  const query = single(raw);
  for (const key of Object.keys(query)) {
    if (!/^(include|sort|filter|page\[[^\]]+\]|filter\[[^\]]+\]|fields\[[^\]]+\])$/.test(key)) {
      throw badArgument(key, `Unknown query parameter ${key}; lists take page[...], filter, filter[TYPE], sort, include and fields[TYPE].`);
    }
  }
  const include = parseInclude(query.include, resource, registry);
  const fields = parseFields(query, registry);
  const page = parsePage(query);
  const sort = parseSort(query.sort, resource, registry);
  const filter = query.filter === undefined ? undefined : { expression: parseFilter('filter', query.filter), parameter: 'filter' };
  return { options: { include, page, sort, filter, filtersByType: parseTypedFilters(query, registry) }, fields, page };
}

/** The parameters, each given once, in an object without a prototype (a parameter may be named `__proto__`). */
function single(raw: RawQuery): Record<string, string> {
  const query = Object.create(null) as Record<string, string>;
  for (const [key, value] of Object.entries(raw)) {
    if (Array.isArray(value)) throw badArgument(key, `Query parameter ${key} is given more than once.`);
    if (value !== undefined) query[key] = value;
  }
  return query;
}

function parsePage(query: Record<string, string>): PageRequest {
  const keys = Object.keys(query).filter((k) => k.startsWith('page['));
  const unknown = keys.find((k) => !['page[number]', 'page[size]', 'page[offset]', 'page[limit]', 'page[totals]'].includes(k));
  if (unknown !== undefined) {
    throw badArgument(
      unknown,
      `Unknown page parameter ${unknown}; use page[number] and page[size], or page[offset] and page[limit], and page[totals].`,
    );
  }
  const numberStyle = 'page[number]' in query || 'page[size]' in query;
  const offsetStyle = 'page[offset]' in query || 'page[limit]' in query;
  if (numberStyle && offsetStyle) {
    throw badArgument('page', 'Use page[number] with page[size], or page[offset] with page[limit], not both styles.');
  }
  const read = (key: string, min: number, max: number, fallback: number): number => {
    const text = query[key];
    if (text === undefined) return fallback;
    if (!/^\d+$/.test(text)) throw badArgument(key, `${key} must be an integer.`);
    const value = Number(text);
    if (value < min) throw badArgument(key, `${key} must be at least ${min}.`);
    if (value > max) throw badArgument(key, `${key} must be at most ${max}.`);
    return value;
  };
  const totals = 'page[totals]' in query;
  if (offsetStyle) {
    const limit = read('page[limit]', 1, maxPageSize, defaultPageSize);
    return { offset: read('page[offset]', 0, Number.MAX_SAFE_INTEGER, 0), limit, style: 'offset', requested: true, totals };
  }
  const limit = read('page[size]', 1, maxPageSize, defaultPageSize);
  const number = read('page[number]', 1, Math.floor(Number.MAX_SAFE_INTEGER / maxPageSize), 1);
  return { offset: (number - 1) * limit, limit, style: 'number', requested: numberStyle || totals, totals };
}

function parseSort(text: string | undefined, resource: ResourceDeclaration, registry: Registry): SortKey[] {
  if (text === undefined) return [];
  return text.split(',').map((part) => {
    const descending = part.startsWith('-');
    const attribute = part.replace(/^[-+]/, '');
    const declared = registry.attribute(resource, attribute);
    if (attribute !== 'id' && declared === undefined) {
      throw badArgument('sort', `${resource.type} has no attribute ${attribute} to sort by.`);
    }
    // An order reveals secrets as surely as a filter.
    if (maySecret(declared)) {
      throw badArgument('sort', `${resource.type}.${attribute} may hold a secret and cannot be sorted by.`);
    }
    return { attribute, descending };
  });
}

function parseInclude(text: string | undefined, resource: ResourceDeclaration, registry: Registry): IncludeTree {
  const tree = Object.create(null) as IncludeTree;
  if (text === undefined || text === '') return tree;
  for (const path of text.split(',')) {
    let node = tree;
    let type = resource;
    for (const name of path.split('.')) {
      const relationship = registry.relationship(type, name);
      if (relationship === undefined) {
        // Names Terrakube clients include but Stratum does not model yet include nothing.
        if (registry.unmodeled(name) !== undefined) break;
        throw badArgument('include', `${type.type} has no relationship ${name} to include.`);
      }
      node = node[name] ??= Object.create(null) as IncludeTree;
      type = registry.target(relationship);
    }
  }
  return tree;
}

function parseFields(query: Record<string, string>, registry: Registry): Fieldsets {
  const fields = new Map<string, ReadonlySet<string>>();
  for (const [key, value] of Object.entries(query)) {
    const match = /^fields\[([^\]]+)\]$/.exec(key);
    if (match?.[1] === undefined) continue;
    const resource = registry.get(match[1]);
    if (resource === undefined) throw badArgument(key, `Unknown type ${match[1]} in ${key}.`);
    const names = value === '' ? [] : value.split(',');
    for (const name of names) {
      if (registry.attribute(resource, name) === undefined && registry.relationship(resource, name) === undefined) {
        throw badArgument(key, `${resource.type} has no field ${name}.`);
      }
    }
    fields.set(resource.type, new Set(names));
  }
  return fields;
}

/** `filter[TYPE]`: filters every list of that type in the answer. */
function parseTypedFilters(query: Record<string, string>, registry: Registry): Map<string, Filter> {
  const filters = new Map<string, Filter>();
  for (const [key, value] of Object.entries(query)) {
    const match = /^filter\[([^\]]+)\]$/.exec(key);
    if (match?.[1] === undefined) continue;
    if (registry.get(match[1]) === undefined) throw badArgument(key, `Unknown type ${match[1]} in ${key}.`);
    filters.set(match[1], { expression: parseFilter(key, value), parameter: key });
  }
  return filters;
}
