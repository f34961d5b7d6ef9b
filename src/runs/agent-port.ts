import type { ServiceWork } from '../engine/index.js';
import { forbidden } from '../errors.js';
import { agentExecutor, AgentTokens, type AgentIdentity } from './agent-tokens.js';
import { runTable } from './job-holds.js';
import type { Jobs } from './jobs.js';
import type { RunRecords } from './run-records.js';
import type { RunnerPort } from './runner-port.js';

/** The longest and shortest lease an agent may ask for: long enough to renew across a hiccup, short enough that a dead agent's jobs end. */
const leaseBounds = { min: 5_000, max: 300_000 };
/** An executor's own name, as an agent sends it (host:pid:id): what it is known by inside its token's. */
const executorName = /^[\w.:@-]{1,128}$/;

/**
 * The runner port as one agent token may use it, over HTTP: the Jobs service's calls, each scoped
 * to what is the agent's own. Its executors are named inside its token (`agent:<token>:<name>`),
 * so it holds, renews, moves and ends only the jobs it took; a call naming a job or a step checks
 * that one of its executors holds that job; it takes only the jobs of its pool's workspaces. Its
 * clock is not trusted: schedules fire at the service's time, and only agents of no pool fire them
 * (those of a pool would fire every organization's). Anything else is a 403, as is a job it does
 * not hold: whether another agent's job exists is none of its business.
 */
export function agentPort(jobs: Jobs, work: ServiceWork, records: RunRecords, agent: AgentIdentity): RunnerPort {
  const named = (executor: string) => {
    if (!executorName.test(executor)) throw forbidden('An executor is named by letters, digits and . : @ _ - (at most 128).');
    return agentExecutor(agent.tokenId, executor);
  };
  const lease = (ms: number) => Math.min(leaseBounds.max, Math.max(leaseBounds.min, ms));
  const holder = async (jobId: string) =>
    (await work.db.selectFrom(runTable).select('executor').where('job_id', '=', jobId).executeTakeFirst())?.executor;
  const held = async (jobId: string) => {
    const executor = await holder(jobId);
    if (typeof executor !== 'string' || !executor.startsWith(agentExecutor(agent.tokenId, '')))
      throw forbidden(`Job ${jobId} is not one this agent holds.`);
  };
  const stepHeld = async (stepId: string) => {
    const step = await work.db.selectFrom(records.step.table).select('job_id').where('id', '=', stepId).executeTakeFirst();
    if (step === undefined) throw forbidden(`Step ${stepId} is not of a job this agent holds.`);
    await held(String(step.job_id));
  };
  return {
    claim: (executor, leaseMs) => jobs.claimOf(agent.pool, named(executor), lease(leaseMs)),
    renew: (jobId, executor, leaseMs) => jobs.renew(jobId, named(executor), lease(leaseMs)),
    jobRunning: (jobId, executor, findings) => jobs.jobRunning(jobId, named(executor), findings),
    jobWaits: (jobId, executor, team) => jobs.jobWaits(jobId, named(executor), team),
    jobEnded: (jobId, executor, ending) => jobs.jobEnded(jobId, named(executor), ending),
    stepMoved: async (jobId, stepId, move) => {
      await held(jobId);
      return jobs.stepMoved(jobId, stepId, move);
    },
    lockWorkspace: async (jobId) => {
      await held(jobId);
      await jobs.lockWorkspace(jobId);
    },
    stateCredential: async (jobId) => {
      await held(jobId);
      return jobs.stateCredential(jobId);
    },
    writeLog: async (stepId, log) => {
      await stepHeld(stepId);
      await jobs.writeLog(stepId, log);
    },
    savePlanView: async (stepId, view) => {
      await stepHeld(stepId);
      await jobs.savePlanView(stepId, view);
    },
    savePlan: async (jobId, plan) => {
      await held(jobId);
      await jobs.savePlan(jobId, plan);
    },
    readPlan: async (jobId) => {
      await held(jobId);
      return jobs.readPlan(jobId);
    },
    // A state a stopped run left is stored after its job ended (no one holds it then): it must be of
    // a workspace of the agent's pool, and is stored for that job's own workspace whatever the note says.
    keepState: async (note, text) => {
      const job = await work.db
        .selectFrom(`${records.job.table} as j`)
        .innerJoin(`${records.workspace.table} as w`, 'w.id', 'j.workspace_id')
        .select(['j.organization_id', 'j.workspace_id', 'w.agent_id'])
        .where('j.id', '=', note.jobId)
        .executeTakeFirst();
      if (job === undefined || (job.agent_id ?? null) !== agent.pool) throw forbidden(`Job ${note.jobId} is not of this agent's pool.`);
      return jobs.keepState({ ...note, organizationId: String(job.organization_id), workspaceId: String(job.workspace_id) }, text);
    },
    seen: (executor, runs, startedAt) => jobs.seen(named(executor), runs, startedAt),
    left: (executor) => jobs.left(named(executor)),
    // Jobs past their lease, whoever held them: never, as `alone` would, every other executor's.
    recover: (executor) => jobs.recover(named(executor), false),
    fireSchedules: () => (agent.pool === null ? jobs.fireSchedules(new Date().toISOString()) : Promise.resolve([])),
    versionsInUse: () => (agent.pool === null ? jobs.versionsInUse() : Promise.resolve([])),
  };
}

/** The runner API's side of the runs: who an agent token is, and the port that agent may use. */
export interface AgentRunner {
  verify(token: string): Promise<AgentIdentity | undefined>;
  portFor(agent: AgentIdentity): RunnerPort;
}

export function agentRunner(jobs: Jobs, work: ServiceWork, records: RunRecords): AgentRunner {
  const tokens = new AgentTokens(work, records);
  return { verify: (token) => tokens.verify(token), portFor: (agent) => agentPort(jobs, work, records, agent) };
}
