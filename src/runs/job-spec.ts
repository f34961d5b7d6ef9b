import path from 'node:path';
import { remoteOf, type CredentialRecords, type GitRemote } from '../git/index.js';
import { isTrue, storedList } from '../model/index.js';
import type { FlowStep } from './flow.js';
import { readFlow } from './flow-reading.js';
import { keptFlow } from './job-changes.js';
import type { RunStatus } from './job-statuses.js';
import type { RunSource } from './run-store.js';
import { assembleVariables, type RunVariables } from './run-variables.js';
import type { ToolKind } from './tool-binaries.js';

/**
 * Everything a job's steps run with, resolved by the service when an executor takes the job, as
 * plain JSON: what crosses to an executor, which reads nothing of the store itself.
 */
export interface JobSpec {
  jobId: string;
  organizationId: string;
  workspaceId: string;
  /** The flow's steps, each with its step record's id and status and its variables (a step's inputs choose its own), in the order they run. */
  steps: { flow: FlowStep; id: string; status: RunStatus; variables: RunVariables }[];
  remote: GitRemote;
  /** The branch the job runs (its override, or the workspace's), or the commit an earlier step of it ran. */
  ref: string;
  /** The folder of the repository Terraform runs in, relative and inside it. */
  folder: string;
  tool: { kind: ToolKind; version: string };
  /** Every sensitive value of the run's variables, whichever step takes it. */
  secrets: string[];
  targets: string[];
  replaces: string[];
  refresh: boolean;
  refreshOnly: boolean;
}

/** Why a job cannot run, said in its `comments` as is. */
export class RunProblem extends Error {}

const textList = (value: unknown): string[] => (typeof value === 'string' && value !== '' ? [...storedList(value)] : []);

/** The flow a job runs: the one kept when it started, or, for a job started before flows were kept, its template's now. */
function flowOf(source: RunSource): FlowStep[] {
  if (source.flow !== undefined) return keptFlow(source.flow);
  const { job, template } = source;
  if (template === undefined) throw new RunProblem(`The template ${String(job.template_reference)} is gone.`);
  const reading = readFlow(String(template.tcl));
  if ('problem' in reading) throw new RunProblem(reading.problem);
  return reading.steps;
}

/** A job's spec from what the store holds; RunProblem names what stops it before anything runs. */
export async function resolveJobSpec(source: RunSource, records: CredentialRecords): Promise<JobSpec> {
  const { job, workspace } = source;
  const stored = new Map(source.steps.map((step) => [Number(step.step_number), step]));
  const flowSteps = flowOf(source).map((flow) => {
    const record = stored.get(flow.step);
    if (record === undefined) throw new RunProblem(`The template changed since the job was created: its step ${flow.step} is new.`);
    return { flow, record };
  });
  const url = typeof workspace.source === 'string' ? workspace.source.trim() : '';
  if (url === '' || url === 'empty')
    throw new RunProblem('The workspace has no repository (it is CLI-driven): Stratum runs templates on workspaces with a source.');
  const version = typeof workspace.terraform_version === 'string' ? workspace.terraform_version.trim() : '';
  if (version === '') throw new RunProblem('The workspace names no Terraform version (terraformVersion).');
  const folder = path.posix.normalize(`/${typeof workspace.folder === 'string' ? workspace.folder : '/'}`).replace(/^\/+/, '');
  if (folder.split('/').includes('..')) throw new RunProblem(`The workspace's folder ${String(workspace.folder)} leaves the repository.`);
  const commit = typeof job.commit_id === 'string' && job.commit_id !== '' ? job.commit_id : undefined;
  const branch = typeof job.override_branch === 'string' && job.override_branch.trim() !== '' ? job.override_branch : workspace.branch;
  const { layers } = source;
  // Every step's variables before anything runs: a problem in a later step's stops the job at once.
  const common = await assembleVariables(layers);
  const steps = [];
  for (const { flow, record } of flowSteps) {
    const { inputsTerraform: TERRAFORM, inputsEnv: ENV } = flow;
    const variables = TERRAFORM === undefined && ENV === undefined ? common : await assembleVariables(layers, { TERRAFORM, ENV });
    if (variables.problems.length > 0) throw new RunProblem(variables.problems.join(' '));
    steps.push({ flow, id: String(record.id), status: String(record.status) as RunStatus, variables });
  }
  return {
    jobId: String(job.id),
    organizationId: String(job.organization_id),
    workspaceId: String(workspace.id),
    steps,
    remote: await remoteOf(source.secrets, records, url, workspace.ssh_id, workspace.vcs_id),
    ref: commit ?? (typeof branch === 'string' && branch !== '' ? branch : 'main'),
    folder,
    tool: { kind: workspace.iac_type === 'tofu' ? 'tofu' : 'terraform', version },
    secrets: common.secrets,
    targets: textList(job.target_addrs),
    replaces: textList(job.replace_addrs),
    refresh: isTrue(job.refresh),
    refreshOnly: isTrue(job.refresh_only),
  };
}
