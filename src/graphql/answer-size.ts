import {
  getDirectiveValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  type FieldNode,
  type GraphQLResolveInfo,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';
import type { AttributeValue, ResourceDeclaration } from '../model/index.js';

/**
 * What a value costs in an answer being built, besides its text: its slot in the object of
 * graphql-js's result that holds it, about 55 bytes on Node 20 whatever the value (measured on
 * records of 900 aliases). Counting it keeps an answer of many short values (aliases of a boolean)
 * as bounded in memory as one of long ones.
 */
const slotBytes = 56;

/** The text of a value of bounded length: a number, a boolean, null, a type name, a cursor. */
const shortValueBytes = 32;

/**
 * What one record adds to the answer where a connection's `edges` places it: the bytes known
 * from the query alone (keys, punctuation, slots, short values, the wrappers of its relationships
 * and their `pageInfo`), and the values whose text comes from the record, with the number of
 * times each is written. The records of its relationships are counted where those place them.
 */
export interface RecordPlacement {
  fixed: number;
  /** Times the record's id is written. */
  ids: number;
  /** Times each attribute is written, by name. */
  attributes: ReadonlyMap<string, number>;
}

/** The text a value of a record takes in the answer. */
export const valueBytes = (value: AttributeValue | undefined): number => {
  if (typeof value === 'string') return value.length + 2;
  // A list of strings: each item quoted, with its comma.
  if (typeof value === 'object' && value !== null) return 2 + value.reduce((sum, item) => sum + item.length + 3, 0);
  return shortValueBytes;
};

/**
 * What a record of `resource` adds to the answer where the `edges` field being resolved places
 * it, read from the query as graphql-js will execute it: fields merged by response key across
 * fragments and inline fragments, `@skip` and `@include` applied, every alias counted.
 */
export function recordPlacement(resource: ResourceDeclaration, edges: GraphQLResolveInfo): RecordPlacement {
  const attributes = new Map<string, number>();
  const placement = { fixed: slotBytes, ids: 0, attributes };
  const value = (key: string, text: number) => (placement.fixed += key.length + 4 + slotBytes + text);
  const object = (key: string) => value(key, 2);
  const fieldsOf = (fields: readonly FieldNode[]) => collectFields(fields, edges);

  const connection = (fields: readonly FieldNode[]) => {
    for (const [key, inner] of fieldsOf(fields)) {
      const name = nameOf(inner);
      if (name === 'pageInfo') {
        object(key);
        for (const leaf of fieldsOf(inner).keys()) value(leaf, shortValueBytes);
      } else if (name === 'edges') object(key);
      else value(key, shortValueBytes);
    }
  };

  for (const [key, fields] of fieldsOf(edges.fieldNodes)) {
    if (nameOf(fields) !== 'node') {
      value(key, shortValueBytes);
      continue;
    }
    object(key);
    for (const [field, inner] of fieldsOf(fields)) {
      const name = nameOf(inner);
      if (name === 'id') {
        placement.ids++;
        value(field, 0);
      } else if (Object.hasOwn(resource.attributes, name)) {
        attributes.set(name, (attributes.get(name) ?? 0) + 1);
        value(field, 0);
      } else if (inner.some((f) => f.selectionSet !== undefined)) {
        // A relationship, or a connection Stratum does not model yet (always empty).
        object(field);
        connection(inner);
      } else value(field, shortValueBytes);
    }
  }
  return placement;
}

/** A response key's field name (every field merged under one key has the same name). */
const nameOf = (fields: readonly FieldNode[]): string => fields[0]?.name.value ?? '';

/**
 * The fields the selections of `fields` place, by response key, as graphql-js collects them: a
 * fragment is spread once, and a field that `@skip` or `@include` leaves out is not placed.
 */
function collectFields(fields: readonly FieldNode[], info: GraphQLResolveInfo): Map<string, FieldNode[]> {
  const collected = new Map<string, FieldNode[]>();
  const spread = new Set<string>();
  const visit = (selectionSet: SelectionSetNode | undefined) => {
    for (const selection of selectionSet?.selections ?? []) {
      if (!included(selection, info.variableValues)) continue;
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        const same = collected.get(key);
        if (same === undefined) collected.set(key, [selection]);
        else same.push(selection);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet);
      else if (!spread.has(selection.name.value)) {
        spread.add(selection.name.value);
        visit(info.fragments[selection.name.value]?.selectionSet);
      }
    }
  };
  for (const field of fields) visit(field.selectionSet);
  return collected;
}

function included(selection: SelectionNode, variables: GraphQLResolveInfo['variableValues']): boolean {
  return (
    getDirectiveValues(GraphQLSkipDirective, selection, variables)?.if !== true &&
    getDirectiveValues(GraphQLIncludeDirective, selection, variables)?.if !== false
  );
}
