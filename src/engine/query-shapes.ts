import { readerShape, type Reader, type ReaderShape } from '../policy/tenancy.js';

/** How a query checks the visibility of the rows' parent: for each row, once for the whole query, or not (found already). */
export type ParentCheck = 'row' | 'once' | 'done';

/**
 * The hottest queries, by shape: what decides their SQL text, as a typed value. Each is compiled
 * once per shape (store/query-shapes.ts) and run after with new values, so the shape must name
 * everything the text depends on; `buildShape` (shaped-queries.ts) sees nothing else, which keeps a shape from leaving
 * an input out. test/query-shapes.test.ts builds every shape with different values and holds
 * their SQL to test/snapshots/shapes-*.sql.
 */
export type QueryShape = RecordShape | InsertShape | PageShape;

/** Who reads and how far up the path the query checks: the part of a shape the visibility condition decides. */
export interface VisibilityShape {
  /** How many ids of the path above the record the query names. */
  depth: number;
  reader: ReaderShape;
}

/** One record by its id, under the ids of its path; `lock` holds it for a write. Values: the id, the path's ids, the reader's groups. */
export interface RecordShape {
  kind: 'record';
  type: string;
  lock: boolean;
  visibility: VisibilityShape;
}

/**
 * An INSERT of `columns`, returning the row; `under` a parent not looked up yet, inserting only if
 * the reader can see it. Values: the columns', then the parent's id, the ids above it and the groups.
 */
export interface InsertShape {
  kind: 'insert';
  type: string;
  columns: readonly string[];
  under: { type: string; visibility: VisibilityShape } | undefined;
  /**
   * With its change row, in the same statement (PostgreSQL alone: a data-modifying WITH). Values,
   * after the rest: the change row's `changeValueColumns`.
   */
  recorded?: true;
}

/**
 * A page of a list in creation order, unfiltered: whole rows or only ids, the parent checked as
 * `parentCheck` says. Values: LIMIT and OFFSET, the path's ids, the groups.
 */
export interface PageShape {
  kind: 'page';
  type: string;
  idsOnly: boolean;
  parentCheck: ParentCheck;
  visibility: VisibilityShape;
}

/** The visibility part of a shape, and its values, for a reader and the ids of a path. */
export function visibilityOf(reader: Reader, pathIds: readonly string[]): { shape: VisibilityShape; values: unknown[] } {
  const shape = { depth: pathIds.length, reader: readerShape(reader) };
  return { shape, values: shape.reader.administrator ? [...pathIds] : [...pathIds, ...reader.groups] };
}
