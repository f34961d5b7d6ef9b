/**
 * Where a step's log is read (Terrakube's `/tfoutput` path), as both sides name it: an executor
 * links it under the public address, and the service, for the step it writes itself, relative
 * (Terrakube's web UI reads a relative one from its API's address).
 */
export const stepOutputPath = (organizationId: string, jobId: string, stepId: string): string =>
  `/tfoutput/v1/organization/${organizationId}/job/${jobId}/step/${stepId}`;
