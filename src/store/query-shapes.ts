import type { Compilable, CompiledQuery } from 'kysely';
import type { Store } from './database.js';

/** Where one of a query's values goes: built into the query in its place, swapped for the value on each run. */
class Slot {
  constructor(readonly index: number) {}
}

/**
 * Shapes kept at once. Shapes name resources, kinds and small counts, never a caller's text (a
 * sorted or filtered page is compiled each time), so a running service has a few dozen.
 */
const capacity = 1000;

/**
 * Compiled queries kept by shape. The hottest queries (a record by its id and path, with the
 * caller's visibility) differ from one request to the next only in their values, yet building and
 * compiling them with Kysely cost as much as running them. A shape is a typed value that names
 * everything the SQL text depends on; `build` makes its query from the shape and the values alone,
 * once per shape with slots for the values, and each run puts the values into the slots' places
 * among the parameters. One cache per store (a shape's text depends on the dialect).
 */
export class QueryShapes<Shape> {
  private readonly shapes = new Map<string, CompiledQuery>();

  /** `store` keeps the text of each shape prepared; `build` must place every value as a parameter. */
  constructor(
    private readonly store: Pick<Store, 'prepare'>,
    private readonly build: (shape: Shape, values: readonly unknown[]) => Compilable,
  ) {}

  /** The query of `shape` with `values`, compiled once per shape. */
  compiled<R>(shape: Shape, values: readonly unknown[]): CompiledQuery<R> {
    const key = JSON.stringify(shape);
    let compiled = this.shapes.get(key);
    if (compiled === undefined) {
      compiled = this.build(
        shape,
        values.map((_, index) => new Slot(index)),
      ).compile();
      this.store.prepare(compiled.sql);
      if (this.shapes.size >= capacity) this.shapes.delete(this.shapes.keys().next().value ?? '');
      this.shapes.set(key, compiled);
    }
    // The query id and node stay those of the first compile: Kysely's plugins (the statement log)
    // know the query by them.
    const parameters = compiled.parameters.map((parameter) => (parameter instanceof Slot ? values[parameter.index] : parameter));
    return { ...compiled, parameters };
  }
}
