import {
  allOperations,
  isNeverNull,
  isRequired,
  type Attribute,
  type Registry,
  type ResourceDeclaration,
  type ToOne,
} from '../../model/index.js';

export type Schema = Record<string, unknown>;

export const schemaRef = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

const orNull = (type: string, nullable: boolean) => (nullable ? [type, 'null'] : type);

/** Where a schema is read: in the answers the server sends, or in the documents a client sends. */
type Side = 'answer' | 'request';

/**
 * One attribute's schema. Answers and requests differ: an answer holds a secret as null, and
 * never says what the server takes for a value left out (`default`, which only requests carry).
 */
function attributeSchema(attribute: Attribute, side: Side): Schema {
  const readOnly = attribute.readOnly ? { readOnly: true } : {};
  // A default describes what a request that leaves the value out stores; null only where null is allowed.
  const fallback = (value: unknown, nullable: boolean) =>
    side === 'request' && value !== undefined && (value !== null || nullable) ? { default: value } : {};
  switch (attribute.kind) {
    case 'text': {
      if (attribute.secret !== undefined && 'always' in attribute.secret) {
        return side === 'answer'
          ? { type: 'null', description: 'A secret: stored encrypted and never read back, so every answer holds null.' }
          : {
              type: orNull('string', attribute.nullable),
              maxLength: attribute.maxLength,
              writeOnly: true,
              description: 'A secret: stored encrypted and never read back (answers hold null).',
            };
      }
      const secretWhile = attribute.secret === undefined ? undefined : attribute.secret.whileTrue;
      return {
        type: orNull('string', attribute.nullable || secretWhile !== undefined),
        maxLength: attribute.maxLength,
        ...fallback(attribute.default, attribute.nullable),
        ...readOnly,
        ...(secretWhile === undefined
          ? {}
          : {
              description: `A secret while ${secretWhile} is true: then stored encrypted and never read back (answers hold null); read back as sent otherwise.`,
            }),
      };
    }
    case 'enum': {
      const nullable = !isNeverNull(attribute);
      return {
        type: orNull('string', nullable),
        enum: nullable ? [...attribute.values, null] : attribute.values,
        ...fallback(attribute.default, nullable),
        ...readOnly,
      };
    }
    case 'boolean':
      return { type: 'boolean', ...fallback(attribute.default, false), ...readOnly };
    case 'integer':
      return { type: 'integer', minimum: attribute.min, maximum: attribute.max, ...fallback(attribute.default, false), ...readOnly };
    case 'timestamp':
      return { type: orNull('string', attribute.nullable), format: 'date-time', readOnly: true };
    case 'textList':
      return {
        type: orNull('array', true),
        items: { type: 'string', maxLength: attribute.maxLength },
        maxItems: attribute.maxItems,
        ...fallback(null, true),
        ...readOnly,
      };
  }
}

/**
 * The attributes of a resource. In answers, every value that is a secret at the moment is null:
 * an attribute that is one while a flag is true is null whenever the flag is.
 */
function attributesSchema(resource: ResourceDeclaration, side: Side): Schema {
  const entries = Object.entries(resource.attributes);
  const schema: Schema = {
    type: 'object',
    properties: Object.fromEntries(entries.map(([name, attribute]) => [name, attributeSchema(attribute, side)])),
  };
  if (side === 'request') return schema;
  const sealedWhile = entries.flatMap(([name, a]) =>
    a.kind === 'text' && a.secret !== undefined && 'whileTrue' in a.secret ? [[name, a.secret.whileTrue] as const] : [],
  );
  const conditions = sealedWhile.map(([name, flag]) => ({
    if: { required: [flag], properties: { [flag]: { const: true } } },
    then: { properties: { [name]: { type: 'null' } } },
  }));
  return { ...schema, additionalProperties: false, ...(conditions.length === 0 ? {} : { allOf: conditions }) };
}

/** A resource identifier of one of the given types. */
const identifier = (types: readonly string[]): Schema => ({
  type: 'object',
  required: ['type', 'id'],
  properties: { type: types.length === 1 ? { const: types[0] } : { enum: types }, id: { type: 'string' } },
});

/** Whether a to-one link of a stored record can be empty: every link but the parent and the required ones. */
export const mayBeUnlinked = (resource: ResourceDeclaration, name: string, link: ToOne): boolean =>
  name !== resource.parent && !link.required;

/** The relationships member of a resource object: to-one links always, to-many ones only when included. */
function relationshipsSchema(resource: ResourceDeclaration, side: Side): Schema {
  const properties = Object.fromEntries(
    Object.entries(resource.relationships).map(([name, r]) => {
      const data =
        r.kind === 'manyToMany'
          ? { type: 'array', items: identifier([r.type]) }
          : r.kind === 'toMany'
            ? r.atMostOne === true
              ? { oneOf: [identifier([r.type]), { type: 'null' }] }
              : { type: 'array', items: identifier([r.type]) }
            : side === 'request' || mayBeUnlinked(resource, name, r)
              ? { oneOf: [identifier([r.type]), { type: 'null' }] }
              : identifier([r.type]);
      // One record at most links back (a workspace's webhook): its linkage is read, never set here.
      const readOnly = r.kind === 'toMany' && r.atMostOne === true ? { readOnly: true } : {};
      return [name, { type: 'object', required: ['data'], properties: { data }, ...readOnly }];
    }),
  );
  return { type: 'object', properties, ...(side === 'answer' ? { additionalProperties: false } : {}) };
}

/** A record's id: one its author chooses (actions), a number of a sequence (jobs), else a UUID the server assigns. */
export function idSchema(resource: ResourceDeclaration): Schema {
  if (resource.clientIds !== undefined) return { type: 'string', pattern: resource.clientIds.pattern.source };
  return resource.sequenceIds === true ? { type: 'string', pattern: '^[1-9][0-9]{0,15}$' } : { type: 'string', format: 'uuid' };
}

/**
 * The schemas of one resource: its resource object as answered, its documents (a page of them when
 * some path lists them), and what creates and updates send.
 */
export function resourceSchemas(resource: ResourceDeclaration, listed: boolean): Record<string, Schema> {
  const name = resource.type;
  const requiredAttributes = Object.entries(resource.attributes)
    .filter(([, a]) => isRequired(a))
    .map(([n]) => n);
  const requiredRelationships = Object.entries(resource.relationships)
    .filter(([, r]) => r.kind === 'toOne' && r.required)
    .map(([n]) => n);
  const id = idSchema(resource);
  return {
    [`${name}Attributes`]: attributesSchema(resource, 'answer'),
    [`${name}Resource`]: {
      type: 'object',
      required: ['type', 'id', 'attributes', 'relationships'],
      properties: {
        type: { const: name },
        id,
        attributes: schemaRef(`${name}Attributes`),
        relationships: relationshipsSchema(resource, 'answer'),
      },
    },
    // A create must send the required attributes and relationships; an update sends only what changes.
    // Records only the server writes take neither.
    ...(!(resource.operations ?? allOperations).some((operation) => operation === 'create' || operation === 'update')
      ? {}
      : {
          [`${name}InputAttributes`]: attributesSchema(resource, 'request'),
          [`${name}CreateInput`]: inputSchema(resource, { attributes: requiredAttributes, relationships: requiredRelationships }),
          [`${name}Input`]: inputSchema(resource, { attributes: [], relationships: [] }),
        }),
    [`${name}Document`]: {
      type: 'object',
      required: ['data'],
      properties: { data: schemaRef(`${name}Resource`), included: schemaRef('Included') },
    },
    ...(listed
      ? {
          [`${name}ListDocument`]: {
            type: 'object',
            required: ['data', 'links'],
            properties: {
              data: { type: 'array', items: schemaRef(`${name}Resource`) },
              included: schemaRef('Included'),
              meta: schemaRef('PageMeta'),
              links: schemaRef('PageLinks'),
            },
          },
        }
      : {}),
  };
}

function inputSchema(resource: ResourceDeclaration, required: { attributes: string[]; relationships: string[] }): Schema {
  const naming = resource.clientIds;
  const onCreate = naming === undefined ? 'Omitted on create' : `Required on create (${naming.description}), also among the attributes`;
  const withRequired = (schema: Schema, names: string[]) => (names.length === 0 ? schema : { ...schema, required: names });
  return {
    type: 'object',
    required: ['data'],
    properties: {
      data: {
        type: 'object',
        required: required.relationships.length === 0 ? ['type'] : ['type', 'relationships'],
        properties: {
          type: { const: resource.type },
          id: {
            type: 'string',
            description: `${onCreate}; on update, left out or equal to the path id.`,
          },
          attributes: withRequired({ $ref: `#/components/schemas/${resource.type}InputAttributes` }, required.attributes),
          relationships: withRequired(relationshipsSchema(resource, 'request'), required.relationships),
        },
      },
    },
  };
}

/**
 * The schemas every resource shares: error documents, `included`, paging, and the linkage a
 * relationship endpoint answers.
 */
export function sharedSchemas(registry: Registry): Record<string, Schema> {
  const types = [...registry.all()].map((r) => r.type);
  return {
    Errors: {
      type: 'object',
      required: ['errors'],
      properties: {
        errors: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            required: ['status', 'code', 'title', 'detail'],
            properties: {
              status: { type: 'string', pattern: '^[45][0-9]{2}$' },
              code: { type: 'string' },
              title: { type: 'string' },
              detail: { type: 'string' },
              source: {
                oneOf: [
                  { type: 'object', required: ['pointer'], properties: { pointer: { type: 'string' } }, additionalProperties: false },
                  { type: 'object', required: ['parameter'], properties: { parameter: { type: 'string' } }, additionalProperties: false },
                ],
              },
            },
          },
        },
      },
    },
    Included: {
      type: 'array',
      description: 'Records the include parameter asked for, each once.',
      items: { oneOf: types.map((type) => schemaRef(`${type}Resource`)) },
    },
    PageMeta: {
      type: 'object',
      description: 'Given when the request had a page parameter; totals with page[totals].',
      required: ['page'],
      properties: {
        page: {
          type: 'object',
          required: ['number', 'limit'],
          properties: {
            number: { type: 'integer', minimum: 1 },
            limit: { type: 'integer', minimum: 1 },
            totalPages: { type: 'integer', minimum: 1 },
            totalRecords: { type: 'integer', minimum: 0 },
          },
        },
      },
    },
    PageLinks: {
      type: 'object',
      required: ['self', 'first'],
      properties: Object.fromEntries(['self', 'first', 'prev', 'next', 'last'].map((n) => [n, { type: 'string' }])),
    },
    RelationshipDocument: {
      type: 'object',
      required: ['data'],
      description:
        'A to-one relationship: its linkage, or null when it links nothing. A to-many one: a page of linkages, with links (and meta.page when a page parameter was sent); a relationship not modeled yet reads as null or [].',
      properties: {
        data: { oneOf: [{ type: 'null' }, identifier(types), { type: 'array', items: identifier(types) }] },
        meta: schemaRef('PageMeta'),
        links: schemaRef('PageLinks'),
      },
    },
    LinkageDocument: {
      type: 'object',
      required: ['data'],
      description: 'The record a to-one relationship links, or null to unlink it.',
      properties: { data: { oneOf: [identifier(types), { type: 'null' }] } },
    },
  };
}
