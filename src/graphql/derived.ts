import {
  GraphQLBoolean,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigMap,
  type GraphQLOutputType,
} from 'graphql';
import type { Row } from '../model/index.js';

export type DerivedScalar = 'string' | 'boolean' | 'integer';

/** The fields of a derived value: scalars, objects and lists of objects, each field nullable but a list's entries. */
export interface DerivedShape {
  readonly [field: string]: DerivedScalar | { object: DerivedShape } | { list: DerivedShape };
}

/**
 * A list a declared record carries that no table of its own holds: the service computes it for
 * each record the query reaches (a workspace's effective variables). The record is one the caller
 * sees already, as every node of the query is; `read` answers plain values of `shape`.
 */
export interface DerivedList {
  /** The declared type whose records carry it. */
  on: string;
  name: string;
  /** The GraphQL type of its entries; nested objects are named after it and their field. */
  typeName: string;
  shape: DerivedShape;
  description: string;
  read(record: Row): Promise<readonly object[]>;
}

/** The GraphQL type of a derived list's entries, built once with the schema. */
export function derivedType(derived: DerivedList): GraphQLOutputType {
  return new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(objectOf(derived.typeName, derived.shape))));
}

function objectOf(name: string, shape: DerivedShape): GraphQLObjectType {
  return new GraphQLObjectType({
    name,
    fields: (): GraphQLFieldConfigMap<unknown, unknown> =>
      Object.fromEntries(
        Object.entries(shape).map(([field, kind]): [string, GraphQLFieldConfig<unknown, unknown>] => {
          const nested = `${name}${field.charAt(0).toUpperCase()}${field.slice(1)}`;
          if (typeof kind === 'object')
            return [
              field,
              { type: 'object' in kind ? objectOf(nested, kind.object) : new GraphQLList(new GraphQLNonNull(objectOf(nested, kind.list))) },
            ];
          return [field, { type: kind === 'boolean' ? GraphQLBoolean : kind === 'integer' ? GraphQLInt : GraphQLString }];
        }),
      ),
  });
}
