/** Attribute values as the API speaks them: strings, booleans, integers, lists of strings and nulls. */
export type AttributeValue = string | boolean | number | readonly string[] | null;
export type AttributeValues = Record<string, AttributeValue>;

/**
 * A value that is write-only: stored encrypted, read back as null. `always` for credentials; or
 * only while a boolean attribute of the same record (`sensitive`) is true.
 */
export type Secrecy = { always: true } | { whileTrue: string };

/** A string attribute. Optional strings default to null and keep null as null. */
export interface TextAttribute {
  kind: 'text';
  required: boolean;
  nullable: boolean;
  default: string | null;
  /** Longest value in characters (code points). */
  maxLength: number;
  /** Longest value in UTF-8 bytes, for large texts. */
  maxBytes?: number;
  readOnly: boolean;
  secret?: Secrecy;
  /**
   * The type of the record whose id this text holds, for a link clients send and read as plain
   * text (Terrakube's `moduleSshKey`): a value written must be empty or name a record of that type
   * the caller can see in the same tenant, as a link's must.
   */
  idOf?: string;
  /**
   * The type of the records whose ids this text lists, separated by commas (Terrakube's
   * `sharedIds`): each id a write adds must name a record of that type the caller can see in the
   * same tenant, as `idOf`'s must; `""` lists none.
   */
  idsOf?: string;
}

export interface EnumAttribute {
  kind: 'enum';
  values: readonly string[];
  required: boolean;
  /** Optional enumerations without a default take and keep null. */
  default: string | null;
  readOnly: boolean;
}

export interface BooleanAttribute {
  kind: 'boolean';
  default: boolean;
  readOnly: boolean;
}

export interface IntegerAttribute {
  kind: 'integer';
  default: number;
  min: number;
  max: number;
  readOnly: boolean;
  /** Decimal digits sent as text are taken as the integer they write (what a client typed in a text box). */
  digitsAsText?: true;
}

export interface TimestampAttribute {
  kind: 'timestamp';
  readOnly: true;
  nullable: boolean;
}

/**
 * A list of short texts (Terrakube's `targetAddrs`), bounded in count and in the length of each: sent
 * and read as a JSON array of strings, stored as its JSON text. Optional lists default to null.
 */
export interface TextListAttribute {
  kind: 'textList';
  maxItems: number;
  /** Longest item in characters (code points). */
  maxLength: number;
  readOnly: boolean;
}

export type Attribute = TextAttribute | EnumAttribute | BooleanAttribute | IntegerAttribute | TimestampAttribute | TextListAttribute;

// Builders keep declarations short and their defaults in one place.

export function text(options: {
  required?: boolean;
  max: number;
  maxBytes?: number;
  default?: string | null;
  secret?: Secrecy;
  idOf?: string;
  idsOf?: string;
}): TextAttribute {
  const required = options.required ?? false;
  return {
    kind: 'text',
    required,
    nullable: !required,
    default: options.default ?? null,
    maxLength: options.max,
    ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
    ...(options.secret === undefined ? {} : { secret: options.secret }),
    ...(options.idOf === undefined ? {} : { idOf: options.idOf }),
    ...(options.idsOf === undefined ? {} : { idsOf: options.idsOf }),
    readOnly: false,
  };
}

/** An enumeration: required, or optional with a default (null when it has none). */
export function oneOf(values: readonly string[], options: { required: true } | { default: string | null }): EnumAttribute {
  if ('required' in options) return { kind: 'enum', values, required: true, default: null, readOnly: false };
  return { kind: 'enum', values, required: false, default: options.default, readOnly: false };
}

export function flag(fallback: boolean): BooleanAttribute {
  return { kind: 'boolean', default: fallback, readOnly: false };
}

export function integer(fallback: number, min: number, max: number, options: { digitsAsText?: true } = {}): IntegerAttribute {
  const attribute: IntegerAttribute = { kind: 'integer', default: fallback, min, max, readOnly: false };
  return options.digitsAsText === undefined ? attribute : { ...attribute, digitsAsText: true };
}

export function textList(options: { maxItems: number; max: number }): TextListAttribute {
  return { kind: 'textList', maxItems: options.maxItems, maxLength: options.max, readOnly: false };
}

/** A time the server records; null until it happens. */
export function timestamp(): TimestampAttribute {
  return { kind: 'timestamp', readOnly: true, nullable: true };
}

/** A value the server maintains; clients read it and may echo it back, where it is ignored. */
export function readOnly<A extends TextAttribute | BooleanAttribute | EnumAttribute | IntegerAttribute | TextListAttribute>(
  attribute: A,
): A {
  return { ...attribute, readOnly: true };
}

/** Whether a stored value of this attribute is never null (the schema says NOT NULL for it too). */
export function isNeverNull(attribute: Attribute): boolean {
  switch (attribute.kind) {
    case 'boolean':
    case 'integer':
      return true;
    case 'text':
      return !attribute.nullable;
    case 'enum':
      return attribute.required || attribute.default !== null;
    case 'timestamp':
      return !attribute.nullable;
    case 'textList':
      return false;
  }
}

/** Whether a value must be sent on create. */
export function isRequired(attribute: Attribute): boolean {
  return (attribute.kind === 'text' || attribute.kind === 'enum') && attribute.required;
}
