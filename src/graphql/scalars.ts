import { GraphQLEnumType, GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import { operations } from './arguments.js';

/** Record ids, as Elide types them. */
export const deferredId = new GraphQLScalarType({
  name: 'DeferredID',
  description: 'The DeferredID scalar type represents a unique identifier.',
  serialize: (value) => String(value),
  parseValue: (value) => String(value),
  parseLiteral: (node: ValueNode) => {
    if (node.kind === Kind.STRING || node.kind === Kind.INT) return node.value;
    throw new GraphQLError('An id is a string.');
  },
});

/** `first` and `after`: Elide takes them as integers or as strings of digits. */
export const stringOrInt = new GraphQLScalarType({
  name: 'StringOrInt',
  description: 'A String or an Int.',
  serialize: (value) => value,
  parseValue: (value) => {
    if (typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value))) return value;
    throw new GraphQLError('Expected a string or an integer.');
  },
  parseLiteral: (node: ValueNode) => {
    if (node.kind === Kind.STRING || node.kind === Kind.INT) return node.value;
    throw new GraphQLError('Expected a string or an integer.');
  },
});

const enums = new Map<string, GraphQLEnumType>();

/** `op`, one enum per field as Elide names it (`RelationshipOpOrganization`, `RelationshipOpOrganizationWorkspace`). */
export function operationEnum(suffix: string): GraphQLEnumType {
  const name = `RelationshipOp${suffix}`;
  let type = enums.get(name);
  if (type === undefined) {
    type = new GraphQLEnumType({ name, values: Object.fromEntries(operations.map((op) => [op, { value: op }])) });
    enums.set(name, type);
  }
  return type;
}
