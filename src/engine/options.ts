import type { ExpressionNode } from '../rsql/parse.js';

export const defaultPageSize = 500;
export const maxPageSize = 10000;

export interface Page {
  offset: number;
  limit: number;
  /** Count every matching record too. */
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

/** A parsed RSQL filter, and the parameter it came from, which errors name. */
export interface Filter {
  expression: ExpressionNode;
  parameter: string;
}

/** What a single-record read loads besides the record. */
export interface ReadOptions {
  include: IncludeTree;
  /** Filters on the included lists of a type. */
  filtersByType: ReadonlyMap<string, Filter>;
}

export interface ListOptions extends ReadOptions {
  page: Page;
  sort: SortKey[];
  /** A filter on the listed records themselves. */
  filter: Filter | undefined;
}

export const noIncludes: ReadOptions = { include: {}, filtersByType: new Map() };
