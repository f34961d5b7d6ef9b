import type { Compilable, CompiledQuery } from 'kysely';
import type { Store } from './database.js';

/** Where one of a query's values goes: built into the query in its place, swapped for the value on each run. */
class Slot {
  constructor(readonly index: number) {}
}

/** Shapes kept at once; the keys name resources and small counts, so a running service has a few dozen. */
const capacity = 1000;

/**
 * Compiled queries kept by shape. The hottest queries (a record by its id and path, with the
 * caller's visibility) differ from one request to the next only in their values, yet building and
 * compiling them with Kysely cost as much as running them. A shape is built once with slots for
 * its values, compiled, and run after with the values put into the slots' places among the
 * parameters. The key must name everything that changes the SQL text besides the values: the
 * resource, the dialect (one cache per store), the number of values in a list, the caller's kind.
 */
export class QueryShapes {
  private readonly shapes = new Map<string, CompiledQuery>();

  /** `store` keeps the text of each shape prepared. */
  constructor(private readonly store: Pick<Store, 'prepare'>) {}

  /** The query `build` makes from `values`, compiled once per `key`. `build` must place every value as a parameter. */
  compiled<R>(key: string, values: readonly unknown[], build: (values: readonly unknown[]) => Compilable<R>): CompiledQuery<R> {
    let shape = this.shapes.get(key) as CompiledQuery<R> | undefined;
    if (shape === undefined) {
      shape = build(values.map((_, index) => new Slot(index))).compile();
      this.store.prepare(shape.sql);
      if (this.shapes.size >= capacity) this.shapes.delete(this.shapes.keys().next().value ?? '');
      this.shapes.set(key, shape);
    }
    // The query id and node stay those of the first compile: Kysely's plugins (the statement log)
    // know the query by them.
    return { ...shape, parameters: shape.parameters.map((parameter) => (parameter instanceof Slot ? values[parameter.index] : parameter)) };
  }
}
