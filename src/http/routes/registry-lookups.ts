import type { Engine, Session } from '../../engine/index.js';
import { ApiError } from '../../errors.js';
import type { RegistryRecords, ResourceDeclaration, Row } from '../../model/index.js';
import type { JsonSchema } from './described-route.js';

export const pathText: JsonSchema = { type: 'string', minLength: 1, maxLength: 256 };

/** The keys of RegistryRecords that name types of records. */
type RecordName = Exclude<keyof RegistryRecords, 'lookup' | 'archive'>;

export interface Place {
  resource: ResourceDeclaration;
  id: string;
}

/** An RSQL equality on a value sent in a path. */
export const equals = (attribute: string, value: string) => `${attribute}=="${value.replace(/["\\]/g, (c) => `\\${c}`)}"`;

/**
 * Finds the registry's records as the caller sees them, through the same lists as JSON:API: a
 * namespace is an organization the caller can see, by name.
 */
export class RegistryLookups {
  readonly records: Record<RecordName, ResourceDeclaration>;
  readonly lookup: RegistryRecords['lookup'];

  constructor(engine: Engine, { lookup, archive: _archive, ...names }: RegistryRecords) {
    this.lookup = lookup;
    const found = {} as Record<RecordName, ResourceDeclaration>;
    for (const [key, type] of Object.entries(names) as [RecordName, string][]) {
      const resource = engine.registry.get(type);
      if (resource === undefined) throw new Error(`the registry protocols need the ${type} records`);
      found[key] = resource;
    }
    this.records = found;
  }

  /** Every record of a collection the caller sees, page by page (a module has at most a few hundred versions). */
  async all(session: Session, resource: ResourceDeclaration, ancestors: readonly Place[], filter?: string): Promise<Row[]> {
    const rows: Row[] = [];
    for (let offset = 0; ; offset += 500) {
      const page = await session.list(
        { resource, ancestors },
        {
          ...(filter === undefined ? {} : { filter: { name: 'filter', value: filter } }),
          page: { offset: { name: 'page', value: offset } },
        },
      );
      rows.push(...page.rows);
      if (!page.hasMore) return rows;
    }
  }

  /** The first record that matches, or a 404 saying what was looked for. */
  async one(session: Session, resource: ResourceDeclaration, ancestors: readonly Place[], filter: string, what: string): Promise<Row> {
    const [row] = await this.all(session, resource, ancestors, filter);
    if (row === undefined) throw new ApiError(404, { code: 'not_found', detail: `No ${what}.` });
    return row;
  }

  /** A module by the names of the protocol's paths, its organization, and the path to it (the organization, then itself). */
  async module(
    session: Session,
    names: { namespace: string; name: string; provider: string },
  ): Promise<{ row: Row; namespace: Place; ancestors: Place[] }> {
    const place = await this.namespace(session, names.namespace);
    const filter = `${equals('name', names.name)};${equals(this.lookup.moduleProvider, names.provider)}`;
    const row = await this.one(session, this.records.module, [place], filter, `module ${names.namespace}/${names.name}/${names.provider}`);
    return { row, namespace: place, ancestors: [place, { resource: this.records.module, id: String(row.id) }] };
  }

  /** A module's version by the names of the protocol's paths, with the module and the path to it. */
  async moduleVersion(
    session: Session,
    names: { namespace: string; name: string; provider: string; version: string },
  ): Promise<{ row: Row; version: Row; namespace: Place; ancestors: Place[] }> {
    const found = await this.module(session, names);
    const filter = equals(this.lookup.moduleVersion, names.version);
    const version = await this.one(session, this.records.moduleVersion, found.ancestors, filter, `version ${names.version} of this module`);
    return { ...found, version };
  }

  async namespace(session: Session, name: string): Promise<Place> {
    const row = await this.one(session, this.records.namespace, [], equals('name', name), `organization named ${name}`);
    return { resource: this.records.namespace, id: String(row.id) };
  }
}
