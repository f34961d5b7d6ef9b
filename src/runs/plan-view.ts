/**
 * The structured view of a plan that Terrakube's web UI draws (its "Structured" tab of a plan step),
 * from what `show -json` prints of a saved plan: one entry per resource the plan changes, with its
 * values before and after. Values Terraform marks sensitive are null here, as Terrakube's executor
 * leaves them; `changedSensitive` says which of them the plan changes, so the UI can say so without
 * showing them.
 */
export interface PlanChange {
  address: unknown;
  moduleAddress: unknown;
  resourceType: unknown;
  resourceName: unknown;
  actions: string[];
  action: string;
  importing?: unknown;
  before: unknown;
  beforeSensitive: unknown;
  after: unknown;
  afterSensitive: unknown;
  changedSensitive?: unknown;
  afterUnknown: unknown;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The changes of a plan, or undefined when what was shown is not a plan. */
export function planView(shown: unknown): PlanChange[] | undefined {
  if (!isObject(shown) || typeof shown.format_version !== 'string') return undefined;
  const changes = Array.isArray(shown.resource_changes) ? shown.resource_changes : [];
  const view: PlanChange[] = [];
  for (const resource of changes) {
    if (!isObject(resource) || !isObject(resource.change)) continue;
    const change = resource.change;
    const actions = Array.isArray(change.actions) ? change.actions.filter((a): a is string => typeof a === 'string') : [];
    const importing = change.importing ?? undefined;
    let action = actionOf(actions);
    // Resources the plan leaves as they are, unless it imports them.
    if (action === 'no-op' && importing === undefined) continue;
    if (action === 'no-op') action = 'import';
    const beforeSensitive = withDataSensitivity(resource.type, change.before_sensitive);
    const afterSensitive = withDataSensitivity(resource.type, change.after_sensitive);
    const changedSensitive = changedSensitivePaths(change.before, change.after, beforeSensitive, afterSensitive);
    view.push({
      address: resource.address,
      moduleAddress: resource.module_address,
      resourceType: resource.type,
      resourceName: resource.name,
      actions,
      action,
      ...(importing === undefined ? {} : { importing }),
      before: withoutSensitive(change.before, beforeSensitive),
      beforeSensitive,
      after: withoutSensitive(change.after, afterSensitive),
      afterSensitive,
      ...(changedSensitive === undefined ? {} : { changedSensitive }),
      afterUnknown: change.after_unknown,
    });
  }
  return view;
}

function actionOf(actions: string[]): string {
  if (actions.includes('delete') && actions.includes('create')) return 'replace';
  return ['create', 'delete', 'update', 'read', 'no-op'].find((action) => actions.includes(action)) ?? 'unknown';
}

/** A value with every part its sensitivity marks `true` replaced by null. */
function withoutSensitive(value: unknown, sensitive: unknown): unknown {
  if (sensitive === true) return null;
  if (Array.isArray(value)) {
    const marks = Array.isArray(sensitive) ? sensitive : [];
    return value.map((item, index) => withoutSensitive(item, marks[index]));
  }
  if (isObject(value)) {
    const marks = isObject(sensitive) ? sensitive : {};
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withoutSensitive(item, marks[key])]));
  }
  return value;
}

/**
 * terraform_data's `output` is its `input`, but Terraform marks only the input sensitive: the
 * output takes the input's marks, or the plan would show a sensitive input as the output.
 */
function withDataSensitivity(type: unknown, sensitive: unknown): unknown {
  if (type !== 'terraform_data' || !isObject(sensitive)) return sensitive;
  const { input, output } = sensitive;
  const outputUnmarked = output === undefined || output === false || (isObject(output) && Object.keys(output).length === 0);
  return input !== undefined && input !== false && outputUnmarked ? { ...sensitive, output: input } : sensitive;
}

/** Which sensitive parts the plan changes (`true` at each), compared before they are removed; undefined when none. */
function changedSensitivePaths(before: unknown, after: unknown, beforeSensitive: unknown, afterSensitive: unknown): unknown {
  if (beforeSensitive === true || afterSensitive === true) return JSON.stringify(before) === JSON.stringify(after) ? undefined : true;
  if ([before, after, beforeSensitive, afterSensitive].some(isObject)) {
    const parts = [before, after, beforeSensitive, afterSensitive].map((part) => (isObject(part) ? part : {}));
    const keys = new Set(parts.flatMap((part) => Object.keys(part)));
    const changed: Json = {};
    for (const key of keys) {
      const child = changedSensitivePaths(parts[0]?.[key], parts[1]?.[key], parts[2]?.[key], parts[3]?.[key]);
      if (child !== undefined) changed[key] = child;
    }
    return Object.keys(changed).length === 0 ? undefined : changed;
  }
  if ([before, after, beforeSensitive, afterSensitive].some(Array.isArray)) {
    const parts = [before, after, beforeSensitive, afterSensitive].map((part) => (Array.isArray(part) ? (part as unknown[]) : []));
    const length = Math.max(...parts.map((part) => part.length));
    const changed = Array.from({ length }, (_, index) =>
      changedSensitivePaths(parts[0]?.[index], parts[1]?.[index], parts[2]?.[index], parts[3]?.[index]),
    );
    return changed.some((child) => child !== undefined) ? changed.map((child) => child ?? null) : undefined;
  }
  return undefined;
}
