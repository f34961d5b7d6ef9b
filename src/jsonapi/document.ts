import { recordKey } from '../engine/index.js';
import type { Page, RecordPage, RecordResult } from '../engine/index.js';
import type { PageStyle } from './query.js';
import { includedObjects, toResourceObject, type Fieldsets, type ResourceObject } from './serialize.js';

export const mediaType = 'application/vnd.api+json';

export interface ListDocument<T = ResourceObject> {
  data: T[];
  included?: ResourceObject[];
  meta?: { page: { number: number; limit: number; totalPages?: number; totalRecords?: number } };
  links: Record<string, string>;
}

/**
 * A list document. `meta.page` is given only when the client sent a page parameter (what Elide
 * clients expect); links to other pages keep the client's paging style and are given where known.
 */
export function listDocument<T>(
  data: T[],
  included: ResourceObject[] | undefined,
  page: Page & PageStyle,
  hasMore: boolean,
  total: number | undefined,
  path: string,
  query: Record<string, string | string[] | undefined>,
): ListDocument<T> {
  const number = Math.floor(page.offset / page.limit) + 1;
  const document: ListDocument<T> = { data, links: {} };
  if (included !== undefined) document.included = included;
  const totalPages = total === undefined ? undefined : Math.max(1, Math.ceil(total / page.limit));
  if (page.requested) {
    document.meta = { page: { number, limit: page.limit } };
    if (total !== undefined && totalPages !== undefined) {
      document.meta.page.totalPages = totalPages;
      document.meta.page.totalRecords = total;
    }
  }

  const link = (offset: number): string => {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      if (key.startsWith('page[') && key !== 'page[totals]') continue;
      if (typeof value === 'string') params.append(key, value);
    }
    if (page.style === 'offset') {
      params.set('page[offset]', String(offset));
      params.set('page[limit]', String(page.limit));
    } else {
      params.set('page[number]', String(Math.floor(offset / page.limit) + 1));
      params.set('page[size]', String(page.limit));
    }
    // Form-urlencoded, as JSON:API wants a link's query: brackets become %5B and %5D, since RFC 3986 allows them in no query.
    return `${path}?${params.toString()}`;
  };
  document.links.self = link(page.offset);
  document.links.first = link(0);
  if (page.offset > 0) document.links.prev = link(Math.max(0, page.offset - page.limit));
  if (hasMore) document.links.next = link(page.offset + page.limit);
  if (totalPages !== undefined) document.links.last = link((totalPages - 1) * page.limit);
  return document;
}

/** The document of one record, with what its `include` asked for. */
export function recordDocument(
  result: RecordResult,
  fields: Fieldsets,
  withIncluded: boolean,
): { data: ResourceObject; included?: ResourceObject[] } {
  const data = toResourceObject(result.resource, result.row, fields, result.included);
  if (!withIncluded) return { data };
  return { data, included: includedObjects(result.included, fields, new Set([recordKey(result.resource.type, result.row.id)])) };
}

/** The document of a page of records. */
export function pageDocument(
  result: RecordPage,
  fields: Fieldsets,
  withIncluded: boolean,
  style: PageStyle,
  path: string,
  query: Record<string, string | string[] | undefined>,
): ListDocument {
  const data = result.rows.map((row) => toResourceObject(result.resource, row, fields, result.included));
  const included = withIncluded
    ? includedObjects(result.included, fields, new Set(result.rows.map((row) => recordKey(result.resource.type, row.id))))
    : undefined;
  return listDocument(data, included, { ...result.page, ...style }, result.hasMore, result.total, path, query);
}
