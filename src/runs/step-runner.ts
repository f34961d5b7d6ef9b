import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { checkout, GitFailure } from '../git/index.js';
import type { FlowCommand, FlowStep } from './flow.js';
import type { JobSpec } from './runner-port.js';
import { terraformVariablesFile, type RunVariables } from './run-variables.js';
import type { StepOutput } from './step-output.js';
import { assertInside, readInside, recordGroup, UnsafeStepFile, writeInside } from './step-folders.js';
import type { StepIsolation } from './step-sandbox.js';
import { planView, type PlanChange } from './plan-view.js';
import { runStepProcess, type StepEnd } from './step-process.js';

/** Where a step runs, and with what. */
export interface StepPlace {
  spec: JobSpec;
  flow: FlowStep;
  /** The step's variables: the ENV ones are in `environment` already, the TERRAFORM ones are written beside the code. */
  variables: RunVariables;
  /** The step's folder, where the service keeps its notes on it. */
  directory: string;
  /** The step's own, empty, work folder inside it: the repository is checked out into it, and its processes write only there. */
  work: string;
  /** How its processes are kept from everything else. */
  isolation: StepIsolation;
  /** What its processes may read besides the system's programs: the tool's folder, the CLI configuration. */
  readOnly: readonly string[];
  /** The Terraform (or OpenTofu) binary. */
  binary: string;
  /** The environment every process of the step gets: variables, the state backend and its credential. */
  environment: Record<string, string>;
  output: StepOutput;
  cancel: AbortSignal;
  timeoutMs: number;
  graceMs: number;
  /** The job's saved plan, kept between its plan and apply steps. */
  plans: { save(plan: Buffer): Promise<void>; read(): Promise<Buffer | undefined> };
}

/** How a step ended: a plan also says whether it found changes; every step says the commit it ran. */
export type StepOutcome =
  | { kind: 'succeeded'; commit: string; planChanges?: boolean; planView?: PlanChange[] }
  | { kind: 'unsuccessful'; reason: string; commit?: string; exitCode?: number }
  | { kind: 'interrupted' };

/** A backend override: whatever backend the repository names, the run keeps its state in Stratum. */
const backendOverride = 'zz_stratum_backend_override.tf';
const planFile = 'stratum.tfplan';
/** The most of `show -json` read for a plan's structured view; a larger plan is shown as its log only. */
const shownPlanLimit = 16 * 1024 * 1024;
/** The largest saved plan kept between a plan and its apply. */
const savedPlanLimit = 256 * 1024 * 1024;

class StepFailure extends Error {
  constructor(
    message: string,
    /** The code the failing process exited with, when it exited. */
    readonly exitCode?: number,
  ) {
    super(message);
  }
}
class StepCancelled extends Error {}

/**
 * Runs one step of a flow as Terrakube's executor does: the repository checked out at the job's
 * branch (or the commit its first step ran, so every step of a job runs the same code), the
 * variables written beside it, `init`, the step's commands around its own work, and its work:
 * plan (saving the plan for a later apply), apply (of that plan, or afresh), destroy, or scripts.
 */
export async function runStep(place: StepPlace): Promise<StepOutcome> {
  const { output } = place;
  let commit: string | undefined;
  try {
    for (const note of place.variables.notes) output.write(`${note}\n`);
    commit = await checkoutSource(place);
    const folder = path.join(place.work, 'source', place.spec.folder);
    if (!(await stat(folder).catch(() => undefined))?.isDirectory())
      throw new StepFailure(`The repository has no folder ${place.spec.folder} at ${commit}.`);
    await inside(() => assertInside(place.work, folder));
    await give(place, path.join(folder, backendOverride), 'terraform {\n  backend "http" {}\n}\n');
    if (place.variables.terraformFile !== '') await give(place, path.join(folder, terraformVariablesFile), place.variables.terraformFile);
    const type = place.flow.type;
    const scripts = (when: 'beforeInit' | 'before' | 'after') =>
      runScripts(
        place,
        folder,
        place.flow.commands.filter((c) => c[when]),
      );
    if (type === 'customScripts') {
      await runScripts(place, folder, place.flow.commands);
      return { kind: 'succeeded', commit };
    }
    let planChanges: boolean | undefined;
    let view: PlanChange[] | undefined;
    try {
      await scripts('beforeInit');
      await tool(place, folder, ['init', '-input=false', '-no-color']);
      await scripts('before');
      if (type === 'terraformPlan' || type === 'terraformPlanDestroy') {
        const code = await tool(place, folder, planArguments(place, type === 'terraformPlanDestroy'), [0, 2]);
        planChanges = code === 2;
        const plan = await inside(() => readInside(place.work, path.join(folder, planFile), savedPlanLimit));
        if (plan === undefined)
          throw new StepFailure(`${place.spec.tool.kind} plan saved no plan file, or one larger than ${savedPlanLimit} bytes.`);
        await place.plans.save(plan);
        view = await showPlan(place, folder);
      } else if (type === 'terraformApply') {
        const plan = await place.plans.read();
        if (plan === undefined) await tool(place, folder, ['apply', '-input=false', '-no-color', '-auto-approve', ...targets(place)]);
        else {
          await give(place, path.join(folder, planFile), plan);
          await tool(place, folder, ['apply', '-input=false', '-no-color', planFile]);
        }
      } else if (type === 'terraformDestroy') {
        await tool(place, folder, ['destroy', '-input=false', '-no-color', '-auto-approve', ...targets(place)]);
      }
    } catch (error) {
      if (error instanceof StepFailure) await runFailureScripts(place, folder);
      throw error;
    }
    await scripts('after');
    return {
      kind: 'succeeded',
      commit,
      ...(planChanges === undefined ? {} : { planChanges }),
      ...(view === undefined ? {} : { planView: view }),
    };
  } catch (error) {
    if (error instanceof StepCancelled) return { kind: 'interrupted' };
    if (error instanceof StepFailure || error instanceof GitFailure) {
      output.write(`\n${error.message}\n`);
      const exitCode = error instanceof StepFailure ? error.exitCode : undefined;
      return {
        kind: 'unsuccessful',
        reason: error.message,
        ...(commit === undefined ? {} : { commit }),
        ...(exitCode === undefined ? {} : { exitCode }),
      };
    }
    throw error;
  }
}

/** Checks the repository out into the work folder, beside the step's own home and temporary folders, and hands them to its processes. */
async function checkoutSource(place: StepPlace): Promise<string> {
  const { spec, output } = place;
  output.write(`Checking out ${spec.remote.url} at ${spec.ref}\n`);
  const commit = await checkout(spec.remote, spec.ref, path.join(place.work, 'source'));
  output.write(`Commit ${commit}\n`);
  for (const own of ['home', 'tmp']) await mkdir(path.join(place.work, own), { mode: 0o700 });
  await place.isolation.handOver(place.work);
  return commit;
}

/** Writes a file the step's processes read (never through a link a repository or a run left) and hands it to them. */
async function give(place: StepPlace, file: string, data: string | Buffer): Promise<void> {
  await inside(() => writeInside(place.work, file, data));
  await place.isolation.handOver(file);
}

/** A file or folder of the step's that leads out of it fails the step, naming it. */
async function inside<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof UnsafeStepFile) throw new StepFailure(`Refused: ${error.message}.`);
    throw error;
  }
}

function targets(place: StepPlace): string[] {
  return place.spec.targets.map((address) => `-target=${address}`);
}

/** `plan` as the job asks for it; -replace and -refresh-only only when asked, since older versions lack them. */
function planArguments(place: StepPlace, destroy: boolean): string[] {
  const { spec } = place;
  return [
    'plan',
    '-input=false',
    '-no-color',
    `-out=${planFile}`,
    '-detailed-exitcode',
    ...(destroy ? ['-destroy'] : []),
    ...(spec.refresh ? [] : ['-refresh=false']),
    ...(spec.refreshOnly ? ['-refresh-only'] : []),
    ...targets(place),
    ...spec.replaces.map((address) => `-replace=${address}`),
  ];
}

/** Runs the tool; a code outside `accepted` fails the step (Terraform has printed why). */
async function tool(place: StepPlace, folder: string, args: string[], accepted: number[] = [0]): Promise<number> {
  place.output.write(`\n$ ${place.spec.tool.kind} ${args.join(' ')}\n`);
  const end = await run(place, folder, place.binary, args);
  if (end.kind === 'exited' && accepted.includes(end.code)) return end.code;
  throw stepEnded(end, `${place.spec.tool.kind} ${args[0] ?? ''}`);
}

/**
 * The saved plan's structured view, read from `show -json` (redacted as the log is), or undefined
 * when the tool cannot show it: the step's log says so, and the plan stands.
 */
async function showPlan(place: StepPlace, folder: string): Promise<PlanChange[] | undefined> {
  const shown = place.output.alike(shownPlanLimit);
  const end = await run({ ...place, output: shown }, folder, place.binary, ['show', '-json', planFile]);
  shown.end();
  if (end.kind === 'interrupted') throw new StepCancelled();
  const { text, trimmed } = shown.snapshot();
  let view: PlanChange[] | undefined;
  try {
    view = end.kind === 'exited' && end.code === 0 && trimmed === 0 ? planView(JSON.parse(text)) : undefined;
  } catch {
    // A redacted value inside a number or a key leaves no JSON to read.
  }
  if (view === undefined) place.output.write(`\n(No structured view of this plan: ${place.spec.tool.kind} show -json gave none.)\n`);
  return view;
}

/**
 * A flow's BASH scripts, in priority order, each in the folder Terraform runs in. A `verbose` one
 * is shown in the log before it runs, with its priority, and its end marked, as Terrakube does.
 */
async function runScripts(place: StepPlace, folder: string, commands: FlowCommand[]): Promise<void> {
  const ordered = [...commands].sort((a, b) => a.priority - b.priority);
  for (const [index, command] of ordered.entries()) {
    place.output.write(`\n$ script ${index + 1} of ${ordered.length}\n`);
    if (command.verbose)
      place.output.write(`--- priority ${command.priority}, ${command.runtime}:\n${command.script.replace(/\n?$/, '\n')}--- its output:\n`);
    const end = await run(place, folder, '/bin/bash', ['-c', command.script]);
    if (command.verbose) place.output.write(`--- end of script ${index + 1}\n`);
    if (end.kind !== 'exited' || end.code !== 0) throw stepEnded(end, `script ${index + 1}`);
  }
}

/**
 * The step's `onFailure` scripts, run as Terrakube's executor runs them: when a script before the
 * work, `init` or the work itself failed (not a script after it), in the same folder. The step
 * fails all the same; a failing one ends them, and the log says so.
 */
async function runFailureScripts(place: StepPlace, folder: string): Promise<void> {
  if (place.flow.onFailure.length === 0) return;
  place.output.write(`\nThe step failed: running its onFailure scripts.\n`);
  try {
    await runScripts(place, folder, place.flow.onFailure);
  } catch (error) {
    if (!(error instanceof StepFailure)) throw error;
    place.output.write(`\nonFailure: ${error.message}\n`);
  }
}

async function run(place: StepPlace, cwd: string, command: string, args: string[]): Promise<StepEnd> {
  const groups: Promise<void>[] = [];
  const sandboxed = place.isolation.wrap(command, args, { folder: place.work, cwd, readOnly: place.readOnly });
  const end = await runStepProcess({
    command: sandboxed.command,
    args: sandboxed.args,
    cwd,
    // Its home and temporary files in its own folder: nothing of one step's reaches another's.
    env: { ...place.environment, HOME: path.join(place.work, 'home'), TMPDIR: path.join(place.work, 'tmp') },
    output: place.output,
    timeoutMs: place.timeoutMs,
    graceMs: place.graceMs,
    cancel: place.cancel,
    started: (pid) => groups.push(recordGroup(place.directory, pid)),
  });
  await Promise.all(groups);
  return end;
}

function stepEnded(end: StepEnd, what: string): Error {
  switch (end.kind) {
    case 'exited':
      return new StepFailure(`${what} exited with code ${end.code}.`, end.code);
    case 'interrupted':
      return new StepCancelled();
    case 'timed out':
      return new StepFailure(`${what} ran out of time and was stopped.`);
    case 'killed':
      return new StepFailure(`${what} was killed (${end.signal}).`);
    case 'not started':
      return new StepFailure(`${what} could not start: ${end.reason}`);
  }
}
