import { badArgument } from '../errors.js';
import { defaultPageSize, type Argument, type IncludeTree, type ListDraft, type PageDraft, type ReadOptions } from '../engine/index.js';
import type { Registry, ResourceDeclaration } from '../model/index.js';
import type { Fieldsets } from './serialize.js';

/** How the client asked for a page: links and meta answer in the same style. */
export interface PageStyle {
  style: 'number' | 'offset';
  /** Whether any page parameter was sent; meta.page is only given then. */
  requested: boolean;
}

/** The query of a single-record request: what to include, and the sparse fieldsets. */
export interface ReadQuery {
  options: ReadOptions;
  fields: Fieldsets;
}

/** The query of a list request: the list's arguments for the engine, the fieldsets and the paging style. */
export interface ListQuery {
  draft: ListDraft;
  fields: Fieldsets;
  pageStyle: PageStyle;
}

type RawQuery = Readonly<Record<string, string | string[] | undefined>>;

const hasIncludes = (include: IncludeTree) => Object.keys(include).length > 0;

/** Whether a query asks for included records: only then does a document carry `included`. */
export const includes = (query: ReadQuery | ListQuery): boolean =>
  hasIncludes('draft' in query ? (query.draft.include ?? {}) : query.options.include);

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

/** The query of a list request, read as far as its syntax goes; the engine checks the rest against the declaration. */
export function parseListQuery(raw: RawQuery, resource: ResourceDeclaration, registry: Registry): ListQuery {
  const query = single(raw);
  for (const key of Object.keys(query)) {
    if (!/^(include|sort|filter|page\[[^\]]+\]|filter\[[^\]]+\]|fields\[[^\]]+\])$/.test(key)) {
      throw badArgument(key, `Unknown query parameter ${key}; lists take page[...], filter, filter[TYPE], sort, include and fields[TYPE].`);
    }
  }
  const named = (name: string): Argument | undefined => (query[name] === undefined ? undefined : { name, value: query[name] });
  const { page, pageStyle } = parsePage(query);
  const draft: ListDraft = {
    include: parseInclude(query.include, resource, registry),
    page,
    filtersByType: parseTypedFilters(query, registry),
  };
  const filter = named('filter');
  const sort = named('sort');
  if (filter !== undefined) draft.filter = filter;
  if (sort !== undefined) draft.sort = sort;
  return { draft, fields: parseFields(query, registry), pageStyle };
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

/** The page parameters, in one style or the other, as numbers. */
function parsePage(query: Record<string, string>): { page: PageDraft; pageStyle: PageStyle } {
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
  const read = (name: string): Argument<number> | undefined => {
    const text = query[name];
    if (text === undefined) return undefined;
    if (!/^\d+$/.test(text)) throw badArgument(name, `${name} must be a whole number.`);
    return { name, value: Number(text) };
  };
  const totals = 'page[totals]' in query;
  if (offsetStyle) {
    return {
      page: withDefined({ offset: read('page[offset]'), limit: read('page[limit]'), totals }),
      pageStyle: { style: 'offset', requested: true },
    };
  }
  const size = read('page[size]');
  const number = read('page[number]');
  if (number !== undefined && number.value < 1) throw badArgument(number.name, `${number.name} must be at least 1.`);
  // Pages are numbered from 1; the engine knows a page by the offset of its first record.
  const offset = number === undefined ? undefined : { name: number.name, value: (number.value - 1) * (size?.value ?? defaultPageSize) };
  return { page: withDefined({ offset, limit: size, totals }), pageStyle: { style: 'number', requested: numberStyle || totals } };
}

/** A page draft without the members that were not given. */
function withDefined(page: { offset: Argument<number> | undefined; limit: Argument<number> | undefined; totals: boolean }): PageDraft {
  const draft: PageDraft = { totals: page.totals };
  if (page.offset !== undefined) draft.offset = page.offset;
  if (page.limit !== undefined) draft.limit = page.limit;
  return draft;
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
function parseTypedFilters(query: Record<string, string>, registry: Registry): Map<string, Argument> {
  const filters = new Map<string, Argument>();
  for (const [key, value] of Object.entries(query)) {
    const match = /^filter\[([^\]]+)\]$/.exec(key);
    if (match?.[1] === undefined) continue;
    if (registry.get(match[1]) === undefined) throw badArgument(key, `Unknown type ${match[1]} in ${key}.`);
    filters.set(match[1], { name: key, value });
  }
  return filters;
}
