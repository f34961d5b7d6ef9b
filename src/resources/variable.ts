import { defineResource, flag, readOnly, toOne, type PendingWrite } from '../engine/declaration.js';
import { checkEnvironmentKey, keyValueAttributes } from './key-value.js';

export const variable = defineResource({
  type: 'variable',
  table: 'variable',
  parent: { type: 'workspace', relationship: 'workspace' },
  attributes: {
    ...keyValueAttributes,
    // A sensitive variable without a value, which blocks runs until it gets one.
    incomplete: readOnly(flag(false)),
  },
  relationships: {
    workspace: toOne('workspace', 'workspace_id'),
  },
  write: { capability: 'manageWorkspace' },
  beforeWrite: (write) => {
    checkEnvironmentKey(write);
    markIncomplete(write);
  },
});

/** Computed before the value is sealed, while it can still be seen to be empty. */
function markIncomplete(write: PendingWrite): void {
  const { values, current } = write;
  if (!('value' in values) && !('sensitive' in values)) return;
  const sensitive = values.sensitive ?? current?.sensitive === 1;
  if ('value' in values) {
    values.incomplete = sensitive === true && (values.value === null || values.value === '');
  } else if (current !== undefined && current.sensitive !== 1) {
    // Becoming sensitive: the stored value is still plain text here.
    values.incomplete = sensitive === true && (current.value === null || current.value === '');
  }
}
