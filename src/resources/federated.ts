import { ApiError } from '../errors.js';
import { defineResource, text, toMany, toOne, type PendingWrite } from '../model/index.js';

/**
 * An OpenID Connect issuer whose tokens jobs may exchange for cloud credentials (Terrakube's
 * federated credentials), with the claims a token must carry. A record of the whole service, as in
 * Terrakube: administrators alone read and write it. Stored for the runs that will use it.
 */
export const federated = defineResource({
  type: 'federated',
  table: 'federated',
  global: true,
  attributes: {
    name: text({ required: true, max: 128 }),
    issuerUrl: text({ required: true, max: 2048 }),
    audience: text({ max: 1024 }),
  },
  relationships: {
    claims: toMany('federated_claim', 'federated_id'),
  },
  unique: ['name'],
  beforeWrite: checkIssuer,
});

/** A claim a token of the issuer must carry, with its value. */
export const federatedClaim = defineResource({
  type: 'federated_claim',
  table: 'federated_claim',
  parent: 'federated',
  attributes: {
    claimKey: text({ required: true, max: 256 }),
    claimValue: text({ required: true, max: 2048 }),
  },
  relationships: {
    federated: toOne('federated', 'federated_id'),
  },
});

/** An issuer is where its discovery document is found: an http or https URL. */
function checkIssuer(write: PendingWrite): void {
  const { issuerUrl } = write.values;
  if (typeof issuerUrl !== 'string') return;
  let protocol: string | undefined;
  try {
    protocol = new URL(issuerUrl).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol === 'https:' || protocol === 'http:') return;
  throw new ApiError(422, {
    code: 'invalid_value',
    detail: 'issuerUrl must be the http or https URL of an OpenID Connect issuer.',
    at: { attribute: 'issuerUrl' },
  });
}
