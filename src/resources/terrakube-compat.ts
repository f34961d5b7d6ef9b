import type { ClientConventions, UnmodeledRecord } from '../model/index.js';

/**
 * Names Terrakube clients (its Terraform provider, web UI and scripts) send or ask for that the
 * declarations do not serve, kept in one place so the generic code never names them.
 */
export const terrakubeConventions: ClientConventions = {
  // Read-only attributes clients echo back in bodies: ignored on input for every type, so a client
  // can GET, edit and PATCH back.
  echoedReadOnly: ['createdBy', 'createdDate', 'updatedBy', 'updatedDate', 'lastJobStatus', 'lastJobDate', 'incomplete', 'firing'],
  // Relationships clients send or include that Stratum does not model yet, with their kind: in a
  // body they are accepted as null, in `include` they include nothing, and their relationship
  // endpoints read as empty.
  unmodeledRelationships: {
    // Modeled on workspaces (their VCS webhook); any other record keeps taking the name as null, as
    // it did before, and the description's examples of records without a to-one link change it.
    webhook: 'toOne',
  },
};

/**
 * Terrakube's permission endpoints name a workspace beside its organization
 * (`/access-token/v1/teams/permissions/organization/{id}/workspace/{id}`).
 */
export const permissionScopes: readonly string[] = ['workspace'];

/**
 * The records of unmodeled relationships that Terrakube's web UI reads through GraphQL, with the
 * fields it asks for: served as empty lists until Stratum models them. None today (a notification
 * configuration's templates, the last one, are stored).
 */
export const unmodeledRecords: Readonly<Record<string, UnmodeledRecord>> = {};
