import { parse as parseRsql } from '@rsql/parser';
import type { ExpressionNode } from '@rsql/ast';
import type { ResourceDeclaration, Resources } from '../engine/declaration.js';
import { maySecret, unmodeledRelationships } from '../engine/declaration.js';
import { badParameter } from './errors.js';

export const defaultPageSize = 500;
export const maxPageSize = 10000;
const maxFilterLength = 4096;
const maxFilterComparisons = 100;
const maxFilterNesting = 10;

export interface Page {
  offset: number;
  limit: number;
  /** How the client asked: links and meta answer in the same style. */
  style: 'number' | 'offset';
  /** Whether any page parameter was sent; meta.page is only given then. */
  requested: boolean;
  totals: boolean;
}

export interface SortKey {
  attribute: string;
  descending: boolean;
}

/** The relationships to include, as a tree: `a,a.b` is {a: {b: {}}}. */
export interface IncludeTree {
  [relationship: string]: IncludeTree;
}

export interface Filters {
  /** `filter`: applies to the primary data. */
  joined: ExpressionNode | undefined;
  /** `filter[TYPE]`: applies to every list of that type in the response. */
  byType: Map<string, ExpressionNode>;
}

export interface ReadQuery {
  include: IncludeTree;
  /** `fields[TYPE]`: the attribute and relationship names to keep, by type. */
  fields: Map<string, ReadonlySet<string>>;
}

export interface ListQuery extends ReadQuery {
  page: Page;
  sort: SortKey[];
  filters: Filters;
}

type RawQuery = Record<string, string | string[] | undefined>;

/** The query of a single-record request: only `include` and `fields` apply. */
export function parseReadQuery(raw: RawQuery, resource: ResourceDeclaration, resources: Resources): ReadQuery {
  const query = single(raw);
  for (const key of Object.keys(query)) {
    if (key !== 'include' && !/^fields\[[^\]]+\]$/.test(key)) {
      throw badParameter(key, `Unknown query parameter ${key}; a single record takes include and fields[TYPE].`);
    }
  }
  return { include: parseInclude(query.include, resource, resources), fields: parseFields(query, resources) };
}

/** The query of a list request. */
export function parseListQuery(raw: RawQuery, resource: ResourceDeclaration, resources: Resources): ListQuery {
  const query = single(raw);
  for (const key of Object.keys(query)) {
    if (!/^(include|sort|filter|page\[[^\]]+\]|filter\[[^\]]+\]|fields\[[^\]]+\])$/.test(key)) {
      throw badParameter(key, `Unknown query parameter ${key}; lists take page[...], filter, filter[TYPE], sort, include and fields[TYPE].`);
    }
  }
  return {
    include: parseInclude(query.include, resource, resources),
    fields: parseFields(query, resources),
    page: parsePage(query),
    sort: parseSort(query.sort, resource),
    filters: parseFilters(query, resources),
  };
}

function single(raw: RawQuery): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (Array.isArray(value)) throw badParameter(key, `Query parameter ${key} is given more than once.`);
    if (value !== undefined) query[key] = value;
  }
  return query;
}

function parsePage(query: Record<string, string>): Page {
  const keys = Object.keys(query).filter((k) => k.startsWith('page['));
  const unknown = keys.find((k) => !['page[number]', 'page[size]', 'page[offset]', 'page[limit]', 'page[totals]'].includes(k));
  if (unknown !== undefined) {
    throw badParameter(unknown, `Unknown page parameter ${unknown}; use page[number] and page[size], or page[offset] and page[limit], and page[totals].`);
  }
  const numberStyle = 'page[number]' in query || 'page[size]' in query;
  const offsetStyle = 'page[offset]' in query || 'page[limit]' in query;
  if (numberStyle && offsetStyle) {
    throw badParameter('page', 'Use page[number] with page[size], or page[offset] with page[limit], not both styles.');
  }
  const read = (key: string, min: number, max: number, fallback: number): number => {
    const text = query[key];
    if (text === undefined) return fallback;
    if (!/^\d+$/.test(text)) throw badParameter(key, `${key} must be an integer.`);
    const value = Number(text);
    if (value < min) throw badParameter(key, `${key} must be at least ${min}.`);
    if (value > max) throw badParameter(key, `${key} must be at most ${max}.`);
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

function parseSort(text: string | undefined, resource: ResourceDeclaration): SortKey[] {
  if (text === undefined) return [];
  return text.split(',').map((part) => {
    const descending = part.startsWith('-');
    const attribute = part.replace(/^[-+]/, '');
    const declared = resource.attributes[attribute];
    if (attribute !== 'id' && declared === undefined) {
      throw badParameter('sort', `${resource.type} has no attribute ${attribute} to sort by.`);
    }
    // An order reveals secrets as surely as a filter.
    if (maySecret(declared)) {
      throw badParameter('sort', `${resource.type}.${attribute} may hold a secret and cannot be sorted by.`);
    }
    return { attribute, descending };
  });
}

function parseInclude(text: string | undefined, resource: ResourceDeclaration, resources: Resources): IncludeTree {
  const tree: IncludeTree = {};
  if (text === undefined || text === '') return tree;
  for (const path of text.split(',')) {
    let node = tree;
    let type: ResourceDeclaration | undefined = resource;
    for (const name of path.split('.')) {
      if (type === undefined) break;
      const relationship: ResourceDeclaration['relationships'][string] | undefined = type.relationships[name];
      if (relationship === undefined) {
        // Names Terrakube clients include but Stratum does not model yet include nothing.
        if (unmodeledRelationships.has(name)) break;
        throw badParameter('include', `${type.type} has no relationship ${name} to include.`);
      }
      node = node[name] ??= {};
      type = resources.get(relationship.type);
    }
  }
  return tree;
}

function parseFields(query: Record<string, string>, resources: Resources): Map<string, ReadonlySet<string>> {
  const fields = new Map<string, ReadonlySet<string>>();
  for (const [key, value] of Object.entries(query)) {
    const match = /^fields\[([^\]]+)\]$/.exec(key);
    if (match?.[1] === undefined) continue;
    const resource = resources.get(match[1]);
    if (resource === undefined) throw badParameter(key, `Unknown type ${match[1]} in ${key}.`);
    const names = value === '' ? [] : value.split(',');
    for (const name of names) {
      if (resource.attributes[name] === undefined && resource.relationships[name] === undefined) {
        throw badParameter(key, `${resource.type} has no field ${name}.`);
      }
    }
    fields.set(resource.type, new Set(names));
  }
  return fields;
}

function parseFilters(query: Record<string, string>, resources: Resources): Filters {
  const filters: Filters = { joined: undefined, byType: new Map() };
  for (const [key, value] of Object.entries(query)) {
    if (key === 'filter') {
      filters.joined = parseFilter(key, value);
      continue;
    }
    const match = /^filter\[([^\]]+)\]$/.exec(key);
    if (match?.[1] === undefined) continue;
    if (!resources.has(match[1])) throw badParameter(key, `Unknown type ${match[1]} in ${key}.`);
    filters.byType.set(match[1], parseFilter(key, value));
  }
  return filters;
}

/** Parses an RSQL expression within the limits that keep a filter cheap to compile and run. */
export function parseFilter(parameter: string, text: string): ExpressionNode {
  if (text.length > maxFilterLength) throw badParameter(parameter, `${parameter} is longer than ${maxFilterLength} characters.`);
  if (nestingDepth(text) > maxFilterNesting) {
    throw badParameter(parameter, `${parameter} nests parentheses deeper than ${maxFilterNesting} levels.`);
  }
  let expression: ExpressionNode;
  try {
    expression = parseRsql(text);
  } catch (error) {
    throw badParameter(parameter, `${parameter} is not valid RSQL: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (countComparisons(expression) > maxFilterComparisons) {
    throw badParameter(parameter, `${parameter} has more than ${maxFilterComparisons} comparisons.`);
  }
  return expression;
}

function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let quote: string | undefined;
  for (const char of text) {
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === '(') {
      deepest = Math.max(deepest, ++depth);
    } else if (char === ')') {
      depth--;
    }
  }
  return deepest;
}

function countComparisons(node: ExpressionNode): number {
  return node.type === 'LOGIC' ? countComparisons(node.left) + countComparisons(node.right) : 1;
}
