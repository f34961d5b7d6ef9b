import {
  getNamedType,
  isObjectType,
  Kind,
  OperationTypeNode,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { ApiError } from '../errors.js';

/** The extension the schema sets on root and relationship fields that query records (not on always empty ones). */
export const readsRecords = 'stratumReadsRecords';

/**
 * What one request may ask for, so that a hostile query cannot exhaust the server. The body is at
 * most 1 MiB (the HTTP layer) and parsing stops after `tokens` tokens. Before anything runs, the
 * valid document is measured with its fragments expanded where they are spread:
 * - depth: fields nested in fields (the web UI's deepest query has 10);
 * - fields: fields selected in all, which also bounds the work of expanding fragments;
 * - lists: root and relationship fields that read records (each is one query per level of the
 *   answer, however many records the level holds).
 * While it runs (what the document alone cannot tell):
 * - records: records in the answer, counting a record each time it appears (a query that walks
 *   relationships back and forth repeats them);
 * - bytes: what the answer holds, every value under every alias and a record each time it appears,
 *   counted as each page is placed (`answer-size.ts`) against the memory of answers, as the rows
 *   read are (STRATUM_RESPONSE_MAX_MIB each, STRATUM_RESPONSE_MEMORY_MIB together);
 * - writes: records a mutation creates, changes or deletes.
 */
export const limits = { tokens: 10_000, depth: 20, fields: 1_000, lists: 50, records: 100_000, writes: 100 } as const;

const tooComplex = (code: string, detail: string) => new ApiError(400, { code, detail });

export const tooManyRecords = () =>
  tooComplex('response_too_large', `The answer would hold more than ${limits.records} records; ask for fewer with first, ids or filter.`);

export const tooManyWrites = () => tooComplex('query_too_complex', `A mutation writes at most ${limits.writes} records.`);

/** Refuses (400) an operation deeper or larger than the limits, before it runs. */
export function checkLimits(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Readonly<Record<string, FragmentDefinitionNode>>,
): void {
  const root = operation.operation === OperationTypeNode.MUTATION ? schema.getMutationType() : schema.getQueryType();
  if (root === null || root === undefined) return;
  const tally = { fields: 0, lists: 0 };

  const visit = (selectionSet: SelectionSetNode, parent: GraphQLObjectType, depth: number, seen: readonly string[]) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition === undefined ? parent : schema.getType(selection.typeCondition.name.value);
        visit(selection.selectionSet, isObjectType(type) ? type : parent, depth, seen);
        continue;
      }
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments[selection.name.value];
        const type = fragment === undefined ? undefined : schema.getType(fragment.typeCondition.name.value);
        // Validation has refused cycles; the guard keeps this walk finite whatever it is given.
        if (fragment !== undefined && !seen.includes(fragment.name.value)) {
          visit(fragment.selectionSet, isObjectType(type) ? type : parent, depth, [...seen, fragment.name.value]);
        }
        continue;
      }
      if (++tally.fields > limits.fields) {
        throw tooComplex('query_too_large', `The query selects more than ${limits.fields} fields (fragments count where they are spread).`);
      }
      if (depth + 1 > limits.depth) throw tooComplex('query_too_deep', `The query nests fields more than ${limits.depth} deep.`);
      const field = fieldOf(schema, parent, selection.name.value);
      if (field === undefined) continue;
      if (field.extensions[readsRecords] === true && ++tally.lists > limits.lists) {
        throw tooComplex('query_too_complex', `The query reads more than ${limits.lists} lists of records; ask for fewer relationships.`);
      }
      const type = getNamedType(field.type);
      if (selection.selectionSet !== undefined && isObjectType(type)) visit(selection.selectionSet, type, depth + 1, seen);
    }
  };
  visit(operation.selectionSet, root, 0, []);
}

function fieldOf(schema: GraphQLSchema, parent: GraphQLObjectType, name: string): GraphQLField<unknown, unknown> | undefined {
  if (name === TypeNameMetaFieldDef.name) return TypeNameMetaFieldDef;
  if (parent === schema.getQueryType()) {
    if (name === SchemaMetaFieldDef.name) return SchemaMetaFieldDef;
    if (name === TypeMetaFieldDef.name) return TypeMetaFieldDef;
  }
  return parent.getFields()[name];
}
