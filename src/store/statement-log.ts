import type { Kysely, KyselyPlugin, QueryId, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import type { Logger } from '../log.js';
import type { Database } from './database.js';

/**
 * The database handle that logs every statement sent through it, at `trace`: its SQL text, never
 * its values (bound parameters, which may be secrets or tokens). Lets an operator see the queries a
 * request makes, and tests count them. A statement is logged once it has run: Kysely also passes
 * the subqueries a statement embeds through its plugins, which are not statements of their own.
 */
export function withStatementLog(db: Kysely<Database>, log: Logger): Kysely<Database> {
  const executor = db.getExecutor();
  const pending = new WeakMap<QueryId, RootOperationNode>();
  const plugin: KyselyPlugin = {
    transformQuery({ node, queryId }): RootOperationNode {
      pending.set(queryId, node);
      return node;
    },
    transformResult({ queryId, result }): Promise<QueryResult<UnknownRow>> {
      const node = pending.get(queryId);
      if (node !== undefined) log.trace({ sql: executor.compileQuery(node, queryId).sql }, 'statement');
      return Promise.resolve(result);
    },
  };
  return db.withPlugin(plugin);
}
