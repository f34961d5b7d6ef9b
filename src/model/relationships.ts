/**
 * A to-one relationship stored as a foreign key column on this resource's table. `onDelete` is what
 * the schema does to this record when the linked one is deleted: a record deleted with the one it
 * links (`cascade`) belongs to it, so it is also hidden while that one is soft-deleted. A record
 * that must outlive the one it links (`keep`: a change record, which describes an organization
 * after it is gone) belongs to it in the same way while it lives, but no foreign key holds the
 * column, which may also name no record at all.
 */
export interface ToOne {
  kind: 'toOne';
  type: string;
  column: string;
  onDelete: 'cascade' | 'set null' | 'keep';
  /** A write must link a record (not for the parent, which the path gives). */
  required: boolean;
  /**
   * A text attribute that holds the linked id too, for clients that send and read the link as an
   * attribute (Terrakube's `tagId`): its column is this link's column, and a write of it is a
   * write of the link, checked as one.
   */
  attribute?: string;
}

/** A to-many relationship: the related table holds `column` pointing back at this resource. */
export interface ToMany {
  kind: 'toMany';
  type: string;
  column: string;
  /**
   * At most one record links back (Terrakube's workspace `webhook`): clients read the relationship
   * as to-one, its linkage one identifier or null, though the key lives on the related record.
   */
  atMostOne?: true;
}

/**
 * A to-many relationship kept in a table of its own, one row per linked pair (Terrakube's templates a
 * notification configuration is narrowed to): `join.column` holds this record's id, `join.otherColumn`
 * the linked one's. Both sides delete their rows of the table with them, so a linked record deleted
 * later simply leaves the list; the list is replaced as a whole by a write of the relationship.
 */
export interface ManyToMany {
  kind: 'manyToMany';
  type: string;
  join: { table: string; column: string; otherColumn: string };
}

export type Relationship = ToOne | ToMany | ManyToMany;

/** A relationship that lists records: the records hold the link, or a table of pairs does. */
export type ListingRelationship = ToMany | ManyToMany;

export const listsRecords = (relationship: Relationship): relationship is ListingRelationship => relationship.kind !== 'toOne';

/**
 * A link to another record. By default it belongs to that record (deleted with it, hidden with
 * it), as a record belongs to its parent; `onDelete: 'set null'` makes it a loose link that is
 * cleared instead.
 */
export function toOne(
  type: string,
  column: string,
  options: { onDelete?: ToOne['onDelete']; required?: boolean; attribute?: string } = {},
): ToOne {
  const link: ToOne = { kind: 'toOne', type, column, onDelete: options.onDelete ?? 'cascade', required: options.required ?? false };
  return options.attribute === undefined ? link : { ...link, attribute: options.attribute };
}

export function toMany(type: string, column: string, options: { atMostOne?: true } = {}): ToMany {
  return options.atMostOne === undefined ? { kind: 'toMany', type, column } : { kind: 'toMany', type, column, atMostOne: true };
}

export function manyToMany(type: string, join: ManyToMany['join']): ManyToMany {
  return { kind: 'manyToMany', type, join };
}
