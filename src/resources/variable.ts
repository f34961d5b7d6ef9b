import { defineResource, flag, isTrue, readOnly, toOne, type PendingWrite } from '../model/index.js';
import { checkEnvironmentKey, keyValueAttributes } from './key-value.js';

export const variable = defineResource({
  type: 'variable',
  table: 'variable',
  parent: 'workspace',
  attributes: {
    ...keyValueAttributes,
    // A sensitive variable without a value, which blocks runs until it gets one.
    incomplete: readOnly(flag(false)),
  },
  relationships: {
    workspace: toOne('workspace', 'workspace_id'),
  },
  unique: ['key'],
  // A collection or workspace may hold many thousands: recent changes first, and a category and key prefix.
  indexes: [['updatedDate'], ['category', 'key']],
  beforeWrite: (write) => {
    checkEnvironmentKey(write);
    markIncomplete(write);
  },
});

/** Computed before the value is sealed, while it can still be seen to be empty. */
function markIncomplete(write: PendingWrite): void {
  const { values, current } = write;
  if (!('value' in values) && !('sensitive' in values)) return;
  const sensitive = values.sensitive ?? isTrue(current?.sensitive);
  if ('value' in values) {
    values.incomplete = sensitive === true && (values.value === null || values.value === '');
  } else if (current !== undefined && !isTrue(current.sensitive)) {
    // Becoming sensitive: the stored value is still plain text here.
    values.incomplete = sensitive === true && (current.value === null || current.value === '');
  }
}
