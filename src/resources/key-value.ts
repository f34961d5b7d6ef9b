import { ApiError } from '../errors.js';
import { flag, oneOf, text, type Attribute, type PendingWrite } from '../model/index.js';
import { environmentKey } from '../runs/index.js';

const maxValueBytes = 256 * 1024;

/**
 * The attributes a collection item and a workspace variable share: a key, a value that is a secret
 * while `sensitive` is true, and how the job engine passes it on (`category`, `hcl`).
 */
export const keyValueAttributes = {
  key: text({ required: true, max: 128 }),
  value: text({ max: maxValueBytes, maxBytes: maxValueBytes, default: '', secret: { whileTrue: 'sensitive' } }),
  description: text({ max: 512 }),
  category: oneOf(['TERRAFORM', 'ENV'], { required: true }),
  sensitive: flag(false),
  hcl: flag(false),
} satisfies Record<string, Attribute>;

/** An `ENV` key becomes an environment variable name, so it must be one. */
export function checkEnvironmentKey(write: PendingWrite): void {
  if (!('key' in write.values) && !('category' in write.values)) return;
  const key = write.values.key ?? write.current?.key;
  const category = write.values.category ?? write.current?.category;
  if (category === 'ENV' && typeof key === 'string' && !environmentKey.test(key)) {
    throw new ApiError(422, {
      code: 'invalid_value',
      detail: `An ENV key must be an environment variable name (${environmentKey.source}); ${JSON.stringify(key)} is not.`,
      at: { attribute: 'key' },
    });
  }
}
