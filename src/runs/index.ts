/**
 * The runs' front door: what the rest of the service (http/, commands/, core, resources/) uses of
 * running jobs. Behind it the Jobs service owns every job's moves (job-statuses.ts is the one
 * transition table), and the executor side speaks to it only through the runner port.
 */
export { buildAgentExecutor, buildExecutor, buildJobs, queueOverview, toolBinaries, type RunPlaceRecords } from './build-executor.js';
export { agentRunner, type AgentRunner } from './agent-port.js';
export { AgentTokens, UnknownPool, type AgentIdentity, type AgentTokenView } from './agent-tokens.js';
export { runnerCalls, type RunnerPort } from './runner-port.js';
export type { Executor } from './executor.js';
export { jobStatusDelivery, localJobEvents, postgresJobEvents, type JobEvents, type JobStatusEvent } from './job-events.js';
export { moveByClient, newJobStatus, startJob, type JobRecords } from './job-changes.js';
export { jobOutcomes, liveStep, runStatuses, status, type RunStatus } from './job-statuses.js';
export { flowFaultAtSave } from './flow-reading.js';
export { executorPrerequisites, sandboxPrerequisite, versionPrerequisites } from './prerequisites.js';
export type { FailureReason, RunMetrics } from './run-report.js';
export type { QueueOverview } from './run-overview.js';
export type { RunRecords } from './run-records.js';
export { RunLogs } from './run-logs.js';
export { jobLiveness, type JobLiveness } from './job-liveness.js';
export { toolVersionsInUse, type StepLog } from './run-store.js';
export { environmentKey } from './run-variables.js';
export { withTrimNote } from './step-output.js';
export { effectiveVariablesReader, type EffectiveVariable, type EffectiveVariablesReader } from './variable-layers.js';
