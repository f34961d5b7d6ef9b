import type { ResourceDeclaration } from '../model/index.js';
import type { CredentialRecords } from '../git/index.js';
import type { JobRecords } from './job-changes.js';

/** The records a run reads and changes: its job, steps and workspace, what its variables come from, the schedules that make jobs, and the agent pools that run them. */
export interface RunRecords extends JobRecords, CredentialRecords {
  variable: ResourceDeclaration;
  globalVariable: ResourceDeclaration;
  reference: ResourceDeclaration;
  collection: ResourceDeclaration;
  item: ResourceDeclaration;
  schedule: ResourceDeclaration;
  /** Agent pools: the workspaces routed to one run on its agents alone. */
  agent: ResourceDeclaration;
}
