import type { Route } from '../../jsonapi/routes.js';
import type { Attribute, AttributeValue, AttributeValues, Registry, ResourceDeclaration } from '../../model/index.js';
import { mayBeUnlinked } from './resource-schemas.js';

export type Operation = Record<string, unknown> & {
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: Content;
  responses?: Record<string, Content>;
};
type Content = { content?: Record<string, { example?: unknown }> };
type Parameter = { name: string; in: string; example?: unknown; schema?: { enum?: string[] } };
type PathItem = Record<string, Operation> & { parameters?: Parameter[] };

/** What the examples are made of: the declarations' sample attributes, and the requests of endpoints beyond them. */
export interface ExampleSources {
  registry: Registry;
  routes: readonly Route[];
  /** Attributes a person would send, by type; a resource without an entry gets examples made from its declaration. */
  attributes: Record<string, AttributeValues>;
  /** The request of the atomic operations endpoint, made with the example ids. */
  atomic?: (ids: ReadonlyMap<string, string>) => unknown;
}

/**
 * One placeholder id per type, the same in every path and body of the document, so that a person
 * (or a test) who replaces each by the id of a record of that type gets requests that succeed.
 */
/** Where the placeholders of sequence ids start: numbers no other example holds. */
export const sequencePlaceholderBase = 9_000_000_000;

export function exampleIds(registry: Registry): Map<string, string> {
  return new Map(
    [...registry.all()].map((resource, index) => [
      resource.type,
      // A number for a resource numbered by a sequence (jobs), as its ids are.
      resource.sequenceIds === true
        ? String(sequencePlaceholderBase + index + 1)
        : `0192f3a0-8c4e-7d10-9a6b-${(index + 1).toString(16).padStart(12, '0')}`,
    ]),
  );
}

/** Sets an example request, or answer, on every operation that takes or gives a document, and on every id in a path. */
export function addExamples(paths: Record<string, PathItem>, sources: ExampleSources): void {
  const { registry, routes } = sources;
  const ids = exampleIds(registry);
  const sample = (resource: ResourceDeclaration) => exampleAttributes(resource, sources.attributes[resource.type], ids);
  const answerOf = (target: ResourceDeclaration) => ({ data: resourceObject(target, sample(target).output, ids) });
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    const item = paths[path];
    const operation = item?.[route.method.toLowerCase()];
    if (item === undefined || operation === undefined) continue;
    const resource = route.mount.resource;
    if (route.mount.through !== undefined) setParameterExample(item, route.mount.through.parameter, ids.get(resource.type));
    switch (route.kind) {
      case 'create':
        setExample(operation.requestBody, {
          data: {
            type: resource.type,
            ...createdId(resource, ids),
            attributes: sample(resource).input,
            ...requiredLinks(resource, ids),
          },
        });
        setExample(operation.responses?.['201'], answerOf(resource));
        break;
      case 'update':
        setExample(operation.requestBody, { data: { type: resource.type, attributes: updateOf(resource, sample(resource).input) } });
        break;
      case 'read':
        setExample(operation.responses?.['200'], answerOf(resource));
        break;
      case 'readRelated':
        setExample(operation.responses?.['200'], answerOf(registry.target(route.relationship.link)));
        break;
      case 'list':
        if (route.mount.single === true) {
          setExample(operation.responses?.['200'], answerOf(resource));
          break;
        }
        setExample(operation.responses?.['200'], {
          data: [resourceObject(resource, sample(resource).output, ids)],
          links: {
            self: `${withIds(path, ids)}?page[number]=1&page[size]=20`,
            first: `${withIds(path, ids)}?page[number]=1&page[size]=20`,
          },
          meta: { page: { number: 1, limit: 20 } },
        });
        break;
      case 'readRelationship':
      case 'updateRelationship': {
        const link = exampleLink(resource, registry);
        setParameterExample(item, 'relationship', link.name);
        const linkage = link.type === undefined ? null : { type: link.type, id: ids.get(link.type) };
        if (route.kind === 'updateRelationship') setExample(operation.requestBody, { data: linkage });
        else setExample(operation.responses?.['200'], { data: linkage });
        break;
      }
      case 'delete':
        break;
    }
  }
  // Every other id in a path: the placeholder of its type.
  for (const item of Object.values(paths)) {
    for (const parameter of item.parameters ?? []) {
      const type = /^(\w+)Id$/.exec(parameter.name)?.[1];
      const id = type === undefined ? undefined : ids.get(type);
      if (parameter.in === 'path' && parameter.example === undefined && id !== undefined) parameter.example = id;
    }
  }
  const atomic = sources.atomic?.(ids);
  if (atomic !== undefined) {
    for (const item of Object.values(paths)) {
      const post = item.post;
      if (post?.operationId === 'atomic_operations') setExample(post.requestBody, atomic);
    }
  }
}

/** The id a create names, for a record its author names (an action); none for one the server names. */
function createdId(resource: ResourceDeclaration, ids: ReadonlyMap<string, string>): { id?: string } {
  return resource.clientIds === undefined ? {} : { id: ids.get(resource.type) ?? '' };
}

/** `/organization/{organizationId}/workspace` with the placeholder ids in it. */
const withIds = (path: string, ids: ReadonlyMap<string, string>) =>
  path.replace(/\{(\w+)Id\}/g, (whole, type: string) => ids.get(type) ?? whole);

function setParameterExample(item: PathItem, name: string, example: unknown): void {
  const parameter = item.parameters?.find((p) => p.name === name);
  if (parameter !== undefined) parameter.example = example;
}

export function setExample(content: Content | undefined, example: unknown): void {
  for (const media of Object.values(content?.content ?? {})) media.example = example;
}

/**
 * The relationship the relationship endpoints' examples change: a link other than the parent, or
 * else the parent, named as it is (which changes nothing); null for a record of no parent, whose
 * example names a relationship name clients use that is not modeled yet.
 */
function exampleLink(resource: ResourceDeclaration, registry: Registry): { name: string; type?: string } {
  const links = Object.entries(resource.relationships).filter(([name, r]) => r.kind === 'toOne' && name !== resource.parent);
  const loose = links.find(([name, r]) => r.kind === 'toOne' && mayBeUnlinked(resource, name, r) && r.attribute === undefined);
  const [name, link] = loose ?? links[0] ?? [];
  if (name !== undefined && link !== undefined) return { name, type: link.type };
  const parent = registry.parentOf(resource);
  if (resource.parent !== undefined && parent !== undefined) return { name: resource.parent, type: parent.type };
  const [unmodeled] = registry.unmodeledRelationships().find(([, kind]) => kind === 'toOne') ?? [];
  return { name: unmodeled ?? Object.keys(resource.relationships)[0] ?? '' };
}

/** What an update example changes: the description where there is one, else an attribute that need not be unique. */
function updateOf(resource: ResourceDeclaration, input: AttributeValues): AttributeValues {
  const names = Object.keys(input);
  const name = names.includes('description') ? 'description' : (names.find((n) => !resource.unique?.includes(n)) ?? names[0]);
  return name === undefined ? {} : { [name]: input[name] ?? null };
}

/** A resource object as the API answers it: every attribute, secrets null, to-one links. */
function resourceObject(
  resource: ResourceDeclaration,
  attributes: AttributeValues,
  ids: ReadonlyMap<string, string>,
): Record<string, unknown> {
  const relationships = Object.fromEntries(
    Object.entries(resource.relationships)
      .filter(([, r]) => r.kind === 'toOne')
      .map(([name, r]) => [name, { data: { type: r.type, id: ids.get(r.type) } }]),
  );
  return { type: resource.type, id: ids.get(resource.type), attributes, relationships };
}

/** The to-one relationships a create must send (other than the parent, which the path gives). */
function requiredLinks(resource: ResourceDeclaration, ids: ReadonlyMap<string, string>): Record<string, unknown> {
  const required = Object.entries(resource.relationships).filter(([, r]) => r.kind === 'toOne' && r.required);
  if (required.length === 0) return {};
  return { relationships: Object.fromEntries(required.map(([name, r]) => [name, { data: { type: r.type, id: ids.get(r.type) } }])) };
}

/**
 * Example attributes: what a create sends (the given ones, else the required ones), and what an
 * answer holds (read-only and audit ones too, secrets null).
 */
function exampleAttributes(
  resource: ResourceDeclaration,
  given: AttributeValues | undefined,
  ids: ReadonlyMap<string, string>,
): { input: AttributeValues; output: AttributeValues } {
  const input: AttributeValues = {};
  const output: AttributeValues = {};
  const linkedBy = new Map(
    Object.values(resource.relationships).flatMap((r) => (r.kind === 'toOne' && r.attribute !== undefined ? [[r.attribute, r.type]] : [])),
  );
  for (const [name, attribute] of Object.entries(resource.attributes)) {
    // A link's id held as an attribute, or as text naming a record (`idOf`): the placeholder of its type.
    const linked = linkedBy.get(name) ?? (attribute.kind === 'text' ? attribute.idOf : undefined);
    const value =
      given !== undefined && name in given
        ? (given[name] ?? null)
        : linked === undefined
          ? fallback(name, attribute)
          : (ids.get(linked) ?? null);
    const required = 'required' in attribute && attribute.required;
    if (!attribute.readOnly && (required || given?.[name] !== undefined)) input[name] = value;
    const secret =
      attribute.kind === 'text' &&
      attribute.secret !== undefined &&
      ('always' in attribute.secret || given?.[attribute.secret.whileTrue] === true);
    output[name] = secret ? null : value;
  }
  return { input, output };
}

function fallback(name: string, attribute: Attribute): AttributeValue {
  switch (attribute.kind) {
    case 'text':
      if (/By$/.test(name)) return 'admin@example.com';
      return attribute.default ?? (attribute.required ? `example ${name}` : null);
    case 'enum':
      return attribute.default ?? attribute.values[0] ?? null;
    case 'boolean':
      return attribute.default;
    case 'integer':
      return attribute.default;
    case 'timestamp':
      return /Date$/.test(name) ? '2025-01-15T09:30:00.000Z' : null;
    case 'textList':
      return null;
  }
}
