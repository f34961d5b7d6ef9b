import {
  assertValidSchema,
  GraphQLBoolean,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  type GraphQLInputFieldConfigMap,
  type GraphQLScalarType,
} from 'graphql';
import type { Attribute, Registry, ResourceDeclaration, UnmodeledField, UnmodeledRecord } from '../model/index.js';
import type { FieldArguments } from './arguments.js';
import { attributeOf, edgesOf, pageInfoOf } from './connections.js';
import { emptyConnection, type ConnectionValue, type NodeValue, type RequestContext } from './context.js';
import { derivedType, type DerivedList } from './derived.js';
import { readsRecords } from './limits.js';
import { relationshipResolver, rootResolver } from './resolvers.js';
import { deferredId, operationEnum, stringOrInt } from './scalars.js';

type Fields = GraphQLFieldConfigMap<NodeValue, RequestContext>;
type Field = GraphQLFieldConfig<NodeValue, RequestContext, FieldArguments>;

/** A type's name in GraphQL, as Elide writes it: the JSON:API type, capitalized. */
export const typeName = (type: string) => type.charAt(0).toUpperCase() + type.slice(1);

const pageInfo = new GraphQLObjectType({
  name: 'PageInfo',
  fields: {
    hasNextPage: { type: GraphQLBoolean },
    hasPreviousPage: { type: GraphQLBoolean },
    startCursor: { type: GraphQLString },
    endCursor: { type: GraphQLString },
    totalRecords: { type: GraphQLInt },
  },
});

const listArguments: GraphQLFieldConfigArgumentMap = {
  ids: { type: new GraphQLList(GraphQLString) },
  filter: { type: GraphQLString, description: 'RSQL, as in a JSON:API filter' },
  sort: { type: GraphQLString, description: 'attribute names, - for descending: "name,-createdDate"' },
  first: { type: stringOrInt, description: 'page size (500 by default, at most 10000)' },
  after: { type: stringOrInt, description: "an offset: the previous page's endCursor" },
};

function scalarOf(kind: Attribute['kind'] | Exclude<UnmodeledField, object>): GraphQLScalarType {
  if (kind === 'boolean') return GraphQLBoolean;
  if (kind === 'integer') return GraphQLInt;
  return GraphQLString;
}

/** An attribute's GraphQL type: a scalar, or a list of strings. */
const typeOfAttribute = (kind: Attribute['kind']): GraphQLScalarType | GraphQLList<GraphQLScalarType> =>
  kind === 'textList' ? new GraphQLList(GraphQLString) : scalarOf(kind);

/**
 * The GraphQL schema, generated from the declarations in Elide's conventions, so that a declared
 * resource is served by both APIs: a root field per type, each record a node whose attributes are
 * fields and whose relationships, to-one and to-many alike, are Relay connections
 * (`edges { node }`, `pageInfo`). Query and Mutation have the same fields; writes take `op` and
 * `data`. Relationships Stratum does not model yet but clients ask for are connections that are
 * always empty. Checked when the service starts.
 */
export function buildGraphQLSchema(
  registry: Registry,
  unmodeled: Readonly<Record<string, UnmodeledRecord>>,
  derived: readonly DerivedList[] = [],
): GraphQLSchema {
  for (const list of derived)
    if (registry.get(list.on) === undefined) throw new Error(`${list.name} is derived on ${list.on}, which is not declared`);
  const connections = new Map<string, GraphQLObjectType>();
  const inputs = new Map<string, GraphQLInputObjectType>();
  const connectionOf = (type: string): GraphQLObjectType => {
    const connection = connections.get(type);
    if (connection === undefined) throw new Error(`no GraphQL type for ${type}`);
    return connection;
  };
  const inputOf = (type: string): GraphQLInputObjectType => {
    const input = inputs.get(type);
    if (input === undefined) throw new Error(`no GraphQL input type for ${type}`);
    return input;
  };

  const addConnection = (type: string, fields: () => Fields) => {
    const node = new GraphQLObjectType<NodeValue, RequestContext>({ name: typeName(type), fields });
    const edge = new GraphQLObjectType({ name: `${typeName(type)}Edge`, fields: { node: { type: node } } });
    connections.set(
      type,
      new GraphQLObjectType<ConnectionValue, RequestContext>({
        name: `${typeName(type)}Connection`,
        fields: { edges: { type: new GraphQLList(edge), resolve: edgesOf }, pageInfo: { type: pageInfo, resolve: pageInfoOf } },
      }),
    );
  };

  for (const resource of registry.all()) {
    addConnection(resource.type, () => nodeFields(resource));
    inputs.set(resource.type, new GraphQLInputObjectType({ name: `${typeName(resource.type)}Input`, fields: () => inputFields(resource) }));
  }
  const placeholders = new Map<string, UnmodeledRecord>();
  for (const [name, record] of Object.entries(unmodeled)) {
    // A relationship declared since is served from its declaration; one whose records are declared
    // but not yet linked from these types reads the declared type, still empty.
    if (registry.unmodeled(name) === undefined) continue;
    placeholders.set(name, record);
    if (registry.get(name) === undefined) addConnection(name, () => placeholderFields(record));
  }

  function nodeFields(resource: ResourceDeclaration): Fields {
    const fields: Fields = { id: { type: deferredId, resolve: (node) => String(node.row.id) } };
    const add = (name: string, field: Field) => {
      if (Object.hasOwn(fields, name)) throw new Error(`${resource.type}.${name} is both an attribute and a relationship`);
      fields[name] = field;
    };
    for (const [name, attribute] of Object.entries(resource.attributes)) {
      add(name, { type: typeOfAttribute(attribute.kind), resolve: (node) => attributeOf(node, name) });
    }
    for (const [name, relationship] of Object.entries(resource.relationships)) {
      const toOne = relationship.kind === 'toOne';
      const target = registry.target(relationship);
      add(name, {
        type: connectionOf(target.type),
        args: {
          op: { type: operationEnum(`${typeName(resource.type)}${typeName(name)}`), defaultValue: 'FETCH' },
          ...(toOne ? {} : listArguments),
          data: { type: toOne ? inputOf(target.type) : new GraphQLList(inputOf(target.type)) },
        },
        resolve: relationshipResolver(name, relationship),
        extensions: { [readsRecords]: true },
      });
    }
    for (const [name, record] of placeholders) {
      if (!record.on.includes(resource.type) || Object.hasOwn(fields, name)) continue;
      add(name, placeholderField(connectionOf(name)));
    }
    for (const list of derived) {
      if (list.on !== resource.type) continue;
      add(list.name, { type: derivedType(list), description: list.description, resolve: (node) => list.read(node.row) });
    }
    return fields;
  }

  function placeholderField(connection: GraphQLObjectType): Field {
    return {
      type: connection,
      args: listArguments,
      resolve: () => emptyConnection(undefined),
    };
  }

  function placeholderFields(record: UnmodeledRecord): Fields {
    const fields: Fields = { id: { type: deferredId } };
    for (const [name, field] of Object.entries(record.fields)) {
      fields[name] = typeof field === 'string' ? { type: scalarOf(field) } : placeholderField(connectionOf(field.linksTo));
    }
    return fields;
  }

  /**
   * An input type carries every relationship, as Elide's do: a to-one one as the linked record (its
   * id), a to-many one as a list of records. Stratum writes those records through the
   * relationship's own field, not inside another record's input: the list is accepted empty. A
   * many-to-many one lists existing records by id, and the list replaces the stored one.
   */
  function inputFields(resource: ResourceDeclaration): GraphQLInputFieldConfigMap {
    const fields: GraphQLInputFieldConfigMap = { id: { type: GraphQLID } };
    for (const [name, attribute] of Object.entries(resource.attributes)) {
      if (!attribute.readOnly) fields[name] = { type: typeOfAttribute(attribute.kind) };
    }
    for (const [name, relationship] of Object.entries(resource.relationships)) {
      const input = inputOf(relationship.type);
      fields[name] =
        relationship.kind === 'toOne'
          ? { type: input }
          : {
              type: new GraphQLList(input),
              description:
                relationship.kind === 'manyToMany'
                  ? `the ${relationship.type} records listed, by id: the whole list, replacing the stored one`
                  : `null or []: ${relationship.type} records are written through the ${name} field, not in this input`,
            };
    }
    return fields;
  }

  const rootFields = (): GraphQLFieldConfigMap<unknown, RequestContext> =>
    Object.fromEntries(
      [...registry.all()].map((resource) => [
        resource.type,
        {
          type: connectionOf(resource.type),
          args: {
            op: { type: operationEnum(typeName(resource.type)), defaultValue: 'FETCH' },
            ...listArguments,
            data: { type: new GraphQLList(inputOf(resource.type)) },
          },
          resolve: rootResolver(resource),
          extensions: { [readsRecords]: true },
        },
      ]),
    );

  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: rootFields }),
    mutation: new GraphQLObjectType({ name: 'Mutation', fields: rootFields }),
  });
  assertValidSchema(schema);
  return schema;
}
