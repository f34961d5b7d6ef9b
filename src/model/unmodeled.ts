/** A field of a record Stratum does not model yet: a scalar, or a link to records of a declared type. */
export type UnmodeledField = 'string' | 'boolean' | 'integer' | { linksTo: string };

/**
 * What clients read of records Stratum does not model yet, reached through a relationship name
 * clients use (`ClientConventions.unmodeledRelationships`): the declared types whose records carry
 * that relationship, and the fields clients ask of its records besides `id`. A transport that must
 * know the shape of what it serves (GraphQL validates every query against a schema) serves these
 * relationships as empty lists, so a client's query for them is valid and reads nothing.
 */
export interface UnmodeledRecord {
  on: readonly string[];
  fields: Readonly<Record<string, UnmodeledField>>;
}
