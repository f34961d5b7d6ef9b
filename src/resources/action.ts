import { ApiError } from '../errors.js';
import { defineResource, flag, text, type PendingWrite } from '../model/index.js';

const maxSourceBytes = 256 * 1024;

/**
 * A button or tab Terrakube's web UI adds to its workspace pages: `action` is the base64 of a JSX
 * component the browser compiles and runs, `type` where it shows (`Workspace/Action`,
 * `Workspace/ResourceDrawer/Action`, `Workspace/ResourceDrawer/Tab`) and `displayCriteria` when.
 * A record of the whole service, named by its author; as the UI runs its code for whoever opens a
 * page, any caller reads actions and administrators alone write them.
 */
export const action = defineResource({
  type: 'action',
  table: 'action',
  global: true,
  clientIds: {
    pattern: /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
    description: 'a name of at most 64 letters, digits, ".", "_" and "-", such as terrakube.open-documentation',
  },
  attributes: {
    name: text({ required: true, max: 128 }),
    label: text({ required: true, max: 128 }),
    category: text({ required: true, max: 128 }),
    description: text({ max: 512 }),
    type: text({ required: true, max: 128 }),
    action: text({ required: true, max: maxSourceBytes, maxBytes: maxSourceBytes }),
    // JSON: a list of {filter, settings}; none (null) shows the action everywhere its type does.
    displayCriteria: text({ max: 64 * 1024 }),
    version: text({ required: true, max: 128 }),
    active: flag(false),
  },
  relationships: {},
  beforeWrite: checkDisplayCriteria,
});

/**
 * The web UI parses `displayCriteria` on every workspace page and walks it as a list of criteria,
 * each a JavaScript `filter` and optional `settings` (key and value): anything else breaks the page
 * for everyone, so it is refused here.
 */
function checkDisplayCriteria(write: PendingWrite): void {
  const { displayCriteria } = write.values;
  if (typeof displayCriteria !== 'string') return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(displayCriteria);
  } catch {
    parsed = undefined;
  }
  const isCriterion = (criterion: unknown) =>
    typeof criterion === 'object' &&
    criterion !== null &&
    typeof (criterion as { filter?: unknown }).filter === 'string' &&
    isSettings((criterion as { settings?: unknown }).settings);
  if (Array.isArray(parsed) && parsed.every(isCriterion)) return;
  throw new ApiError(422, {
    code: 'invalid_value',
    detail:
      'displayCriteria must be a JSON list of criteria, each {"filter": "<JavaScript>", "settings": [{"key", "value"}]} (settings optional).',
    at: { attribute: 'displayCriteria' },
  });
}

function isSettings(settings: unknown): boolean {
  if (settings === undefined || settings === null) return true;
  return (
    Array.isArray(settings) &&
    settings.every((setting) => typeof setting === 'object' && setting !== null && typeof (setting as { key?: unknown }).key === 'string')
  );
}
