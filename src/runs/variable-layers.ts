import type { Engine, ServiceWork } from '../engine/index.js';
import { isTrue, type ResourceDeclaration, type Row } from '../model/index.js';
import type { RunRecords } from './run-records.js';
import { resolveVariables, type ResolvedVariable, type RunVariable, type VariableLayers, type VariableOrigin } from './run-variables.js';

/** More variables than a person keeps on one layer: a run refuses rather than load without bound. */
const maxVariableRows = 5000;
/** More collections than a workspace references. */
const maxCollections = 500;

/**
 * The layers a workspace's variables come from, read in one query each: the organization's global
 * variables, the items of every collection the workspace references (with the collection's name
 * and priority, in one join), and the workspace's own. `open` says whether sensitive values are
 * opened (for a run) or left out (for a reader, who never gets them: their value is empty here).
 */
export async function readVariableLayers(
  work: ServiceWork,
  records: RunRecords,
  place: { organizationId: string; workspaceId: string },
  open: boolean,
): Promise<VariableLayers> {
  const { db } = work;
  const under = async (resource: ResourceDeclaration, parentId: string): Promise<RunVariable[]> => {
    const rows = await db
      .selectFrom(resource.table)
      .selectAll()
      .where(work.parentColumn(resource), '=', parentId)
      .limit(maxVariableRows)
      .execute();
    return rows.map((row) => variableOf(open ? work.openRow(resource, row) : row, open));
  };
  const references = records.reference.table;
  const collectionParent = work.parentColumn(records.collection);
  const collections = await db
    .selectFrom(`${records.collection.table} as c`)
    .innerJoin(`${references} as r`, 'r.collection_id', 'c.id')
    .select(['c.id', 'c.name', 'c.priority'])
    .where('r.workspace_id', '=', place.workspaceId)
    .where(`c.${collectionParent}`, '=', place.organizationId)
    .limit(maxCollections)
    .execute();
  const itemParent = work.parentColumn(records.item);
  const itemRows =
    collections.length === 0
      ? []
      : await db
          .selectFrom(records.item.table)
          .selectAll()
          .where(
            itemParent,
            'in',
            collections.map((collection) => String(collection.id)),
          )
          .limit(maxVariableRows * 10)
          .execute();
  const items = new Map<string, RunVariable[]>();
  for (const row of itemRows) {
    const id = String(row[itemParent]);
    const list = items.get(id) ?? [];
    list.push(variableOf(open ? work.openRow(records.item, row) : row, open));
    items.set(id, list);
  }
  return {
    globals: await under(records.globalVariable, place.organizationId),
    collections: collections.map((collection) => ({
      id: String(collection.id),
      name: String(collection.name),
      priority: Number(collection.priority ?? 0),
      items: items.get(String(collection.id)) ?? [],
    })),
    workspace: await under(records.variable, place.workspaceId),
  };
}

function variableOf(row: Row, opened: boolean): RunVariable {
  const sensitive = isTrue(row.sensitive);
  return {
    key: String(row.key),
    value: (sensitive && !opened) || typeof row.value !== 'string' ? '' : row.value,
    category: row.category === 'ENV' ? 'ENV' : 'TERRAFORM',
    hcl: isTrue(row.hcl),
    sensitive,
  };
}

/** A variable a run of the workspace would receive, as a reader sees it: a sensitive value is null. */
export interface EffectiveVariable {
  key: string;
  category: RunVariable['category'];
  hcl: boolean;
  sensitive: boolean;
  value: string | null;
  /** The layer it came from, and for a collection's item which collection at which priority. */
  source: SourceView;
  /** The variables of the same key and category it won over, highest first. */
  overrides: SourceView[];
}

export interface SourceView {
  layer: VariableOrigin['layer'];
  collectionId: string | null;
  collectionName: string | null;
  priority: number | null;
}

const sourceView = (origin: VariableOrigin): SourceView =>
  origin.layer === 'collection'
    ? {
        layer: origin.layer,
        collectionId: origin.collection.id,
        collectionName: origin.collection.name,
        priority: origin.collection.priority,
      }
    : { layer: origin.layer, collectionId: null, collectionName: null, priority: null };

/**
 * Every variable a run of the workspace receives (a step that names its own inputs aside), by the
 * same resolution a run uses, with sensitive values left out: they are never opened for this read.
 * Sorted by category, then key.
 */
export async function effectiveVariables(
  work: ServiceWork,
  records: RunRecords,
  place: { organizationId: string; workspaceId: string },
): Promise<EffectiveVariable[]> {
  const { resolved } = resolveVariables(await readVariableLayers(work, records, place, false));
  return resolved
    .map(({ variable, origin, overrides }: ResolvedVariable) => ({
      key: variable.key,
      category: variable.category,
      hcl: variable.hcl,
      sensitive: variable.sensitive,
      value: variable.sensitive ? null : variable.value,
      source: sourceView(origin),
      overrides: overrides.map(sourceView),
    }))
    .sort((a, b) => a.category.localeCompare(b.category) || a.key.localeCompare(b.key));
}

/** The effective variables of a workspace, read as the service: for a transport that found the workspace through its caller's session. */
export type EffectiveVariablesReader = (place: { organizationId: string; workspaceId: string }) => Promise<EffectiveVariable[]>;

export function effectiveVariablesReader(engine: Engine, records: RunRecords): EffectiveVariablesReader {
  const work = engine.work('service');
  return (place) => effectiveVariables(work, records, place);
}
