import type { ResourceDeclaration, Row, WriteContext } from '../model/index.js';

/** The records a run reads and changes, and the one place a job's status changes (its hooks: last status, the event it emits). */
export interface RunRecords {
  job: ResourceDeclaration;
  step: ResourceDeclaration;
  workspace: ResourceDeclaration;
  template: ResourceDeclaration;
  variable: ResourceDeclaration;
  globalVariable: ResourceDeclaration;
  reference: ResourceDeclaration;
  collection: ResourceDeclaration;
  item: ResourceDeclaration;
  schedule: ResourceDeclaration;
  moveJob(context: WriteContext, change: { job: Row; from: string | undefined; to: string; reason?: string }): Promise<void>;
}

/** Statuses of a job that has not finished: a later job of its workspace waits behind it, as in Terrakube. */
export const unfinishedStatuses: readonly string[] = ['pending', 'queue', 'running', 'waitingApproval', 'approved'];
