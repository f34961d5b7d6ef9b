import type { GraphQLFieldResolver } from 'graphql';
import type { Relationship, ResourceDeclaration } from '../model/index.js';
import { operationOf, type FieldArguments } from './arguments.js';
import { fetchRelated, fetchRoot } from './connections.js';
import type { ConnectionValue, NodeValue, RequestContext } from './context.js';
import { mutateRelated, mutateRoot } from './mutations.js';

type Resolver<Source> = GraphQLFieldResolver<Source, RequestContext, FieldArguments, Promise<ConnectionValue | null>>;

/** A root field (`organization(ids, filter, sort, first, after)`, or a write with `op` and `data`). */
export function rootResolver(resource: ResourceDeclaration): Resolver<unknown> {
  return async (_source, args, context, info) => {
    const op = operationOf(args, context.mutation, false);
    return op === 'FETCH' ? fetchRoot(context, resource, args, info) : mutateRoot(context, resource, op, args);
  };
}

/**
 * A relationship field of a record. A problem with its arguments, or a failed load, is reported
 * once for the field, not once for every record of the list that holds it.
 */
export function relationshipResolver(name: string, relationship: Relationship): Resolver<NodeValue> {
  return async (node, args, context, info) => {
    try {
      const op = operationOf(args, context.mutation, relationship.kind === 'toOne');
      if (op === 'FETCH') return await fetchRelated(context, node, name, relationship, args, info);
      return await mutateRelated(context, node, name, relationship, op, args);
    } catch (error) {
      const field = info.fieldNodes[0];
      if (field === undefined || !context.reportedFields.has(field)) {
        if (field !== undefined) context.reportedFields.add(field);
        throw error;
      }
      return null;
    }
  };
}
