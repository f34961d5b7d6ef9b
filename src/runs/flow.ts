/**
 * What a step of a template's flow does (Terrakube's flow types). `disableWorkspace` locks the
 * workspace against further runs; `scheduleTemplates` adds schedules to it.
 */
export const flowTypes = [
  'terraformPlan',
  'terraformPlanDestroy',
  'terraformApply',
  'terraformDestroy',
  'customScripts',
  'approval',
  'disableWorkspace',
  'scheduleTemplates',
] as const;
export type FlowType = (typeof flowTypes)[number];

/** A script a step runs around its own work: before it, after it, or on its own (`customScripts`). */
export interface FlowCommand {
  runtime: 'BASH';
  script: string;
  priority: number;
  before: boolean;
  after: boolean;
  verbose: boolean;
  beforeInit: boolean;
}

/** A template a `scheduleTemplates` step schedules on the workspace, with its Quartz cron expression. */
export interface FlowSchedule {
  name: string;
  schedule: string;
}

export interface FlowStep {
  type: FlowType;
  /** Where the step runs in the flow, and its id among the job's steps. */
  step: number;
  name: string;
  /** The team whose members may approve an `approval` step (administrators always may). */
  team: string | undefined;
  ignoreError: boolean;
  commands: FlowCommand[];
  /** Scripts that run when the step's Terraform work fails, before the step ends failed. */
  onFailure: FlowCommand[];
  templates: FlowSchedule[];
  /**
   * The global variables the step takes, by category, instead of the organization's global
   * variables and the workspace's collections: each entry names a variable of the step and the
   * global variable (`$NAME`) it takes the value of. Undefined when the step does not say.
   */
  inputsEnv: Record<string, string> | undefined;
  inputsTerraform: Record<string, string> | undefined;
}

/** A flow read from a template, its steps in the order they run; or why it cannot run. */
export type FlowReading = { steps: FlowStep[] } | { problem: string };

/** Bounds that keep a flow a plan of work rather than a payload: templates are at most 256 KiB. */
const maxSteps = 100;
const maxCommands = 50;
const maxScriptBytes = 64 * 1024;

// The keys a step may have: FlowStep's, and those only accepted empty (refusedFields says why).
const stepKeys = new Set(
  Object.keys({
    type: true,
    step: true,
    name: true,
    team: true,
    ignoreError: true,
    commands: true,
    onFailure: true,
    onReject: true,
    templates: true,
    inputsEnv: true,
    inputsTerraform: true,
    importCommands: true,
  } satisfies Record<keyof FlowStep | 'importCommands' | 'onReject', true>),
);
const commandKeys = new Set(['runtime', 'script', 'priority', 'before', 'after', 'verbose', 'beforeInit']);

/** The step types whose Terraform work can fail and so run `onFailure` (Terrakube's executor: plan, apply, destroy). */
const terraformWork: readonly string[] = ['terraformPlan', 'terraformPlanDestroy', 'terraformApply', 'terraformDestroy'];

/**
 * Fields of a step that Stratum would not act on, and why: a template that uses one is refused when
 * it is saved, and a job of one stored before fails at once, rather than run without what it asks.
 */
const refusedFields: readonly { field: string; refused: (type: unknown) => boolean; why: string }[] = [
  {
    field: 'importCommands',
    refused: () => true,
    why: 'imports its commands from another repository (importCommands), which Stratum does not run',
  },
  {
    field: 'onReject',
    refused: () => true,
    why: 'lists onReject scripts, which Stratum does not run: a rejected job ends at once, and nothing runs after it',
  },
  {
    field: 'onFailure',
    refused: (type) => !terraformWork.includes(String(type)),
    why: `lists onFailure scripts, which run only when the Terraform work of a ${terraformWork.join(', ')} step fails`,
  },
];

/**
 * Why a flow cannot run, and where: the path of the YAML node at fault (`['flow', 2]` for the third
 * step), so that a template refused when saved can name its line.
 */
export class FlowProblem extends Error {
  constructor(
    message: string,
    readonly at: readonly (string | number)[] = [],
  ) {
    super(message);
  }
}

/** The first use of a refused field, said as a problem; an empty list or null uses nothing, as in Terrakube. */
export function refusedField(value: unknown): FlowProblem | undefined {
  const flow = isRecord(value) && Array.isArray(value.flow) ? (value.flow as unknown[]) : [];
  for (const [index, entry] of flow.entries()) {
    if (!isRecord(entry)) continue;
    for (const { field, refused, why } of refusedFields) {
      const used = entry[field];
      if (used === undefined || used === null || (Array.isArray(used) && used.length === 0) || !refused(entry.type)) continue;
      const step = typeof entry.step === 'number' ? `Step ${entry.step}` : `Step ${index + 1} of the flow`;
      return new FlowProblem(`${step} (${String(entry.type)}) ${why}.`, ['flow', index, field]);
    }
  }
  return undefined;
}

/** The steps of a parsed template, checked, in the order they run; a FlowProblem says what is wrong. */
export function flowSteps(value: unknown): FlowStep[] {
  const root = record(value, 'The template');
  const unknown = Object.keys(root).find((key) => key !== 'flow');
  if (unknown !== undefined) throw new FlowProblem(`The template has an unknown key "${unknown}": it holds only "flow".`, [unknown]);
  if (!Array.isArray(root.flow) || root.flow.length === 0)
    throw new FlowProblem('The template has no steps: "flow" must list at least one.', ['flow']);
  if (root.flow.length > maxSteps)
    throw new FlowProblem(`The template has ${root.flow.length} steps; at most ${maxSteps} run in one job.`, ['flow']);
  const steps = root.flow.map((entry, index) => {
    try {
      return flowStep(entry, `Step ${index + 1} of the flow`);
    } catch (problem) {
      throw problem instanceof FlowProblem ? new FlowProblem(problem.message, ['flow', index]) : problem;
    }
  });
  const seen = new Set<number>();
  for (const [index, { step }] of steps.entries()) {
    if (seen.has(step))
      throw new FlowProblem(`Two steps of the flow are numbered ${step}: step numbers order the steps and must differ.`, ['flow', index]);
    seen.add(step);
  }
  return steps.sort((a, b) => a.step - b.step);
}

function flowStep(value: unknown, where: string): FlowStep {
  const entry = record(value, where);
  for (const key of Object.keys(entry)) {
    if (!stepKeys.has(key)) throw new FlowProblem(`${where} has an unknown key "${key}".`);
  }
  const type = entry.type;
  if (typeof type !== 'string' || !(flowTypes as readonly string[]).includes(type))
    throw new FlowProblem(`${where} has type ${JSON.stringify(type ?? null)}; a step's type is one of ${flowTypes.join(', ')}.`);
  const step = entry.step;
  if (typeof step !== 'number' || !Number.isSafeInteger(step) || step < 0)
    throw new FlowProblem(`${where} (${type}) needs "step", a whole number at least 0 that orders it.`);
  const at = `Step ${step} (${type})`;
  const name = optionalText(entry.name, `${at}: name`) ?? `Running Step ${step}`;
  const commands = commandList(entry.commands, `${at}: commands`);
  if (type === 'customScripts' && commands.length === 0) throw new FlowProblem(`${at} runs scripts, but lists no commands.`);
  const templates = scheduleList(entry.templates, `${at}: templates`);
  if (type === 'scheduleTemplates' && templates.length === 0) throw new FlowProblem(`${at} schedules templates, but lists none.`);
  return {
    type: type as FlowType,
    step,
    name,
    team: optionalText(entry.team, `${at}: team`),
    ignoreError: optionalFlag(entry.ignoreError, `${at}: ignoreError`),
    commands,
    onFailure: commandList(entry.onFailure, `${at}: onFailure`),
    templates,
    inputsEnv: inputs(entry.inputsEnv, `${at}: inputsEnv`),
    inputsTerraform: inputs(entry.inputsTerraform, `${at}: inputsTerraform`),
  };
}

function commandList(value: unknown, where: string): FlowCommand[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new FlowProblem(`${where} must be a list of commands.`);
  if (value.length > maxCommands) throw new FlowProblem(`${where} lists ${value.length} commands; at most ${maxCommands}.`);
  return value.map((item, index) => {
    const at = `${where}, command ${index + 1}`;
    const command = record(item, at);
    for (const key of Object.keys(command)) {
      if (!commandKeys.has(key)) throw new FlowProblem(`${at} has an unknown key "${key}".`);
    }
    const runtime = command.runtime ?? 'BASH';
    if (runtime !== 'BASH')
      throw new FlowProblem(
        `${at} has runtime ${JSON.stringify(runtime)}: Stratum runs BASH scripts (GROOVY needs Terrakube's Java executor).`,
      );
    const script = command.script;
    if (typeof script !== 'string' || script.trim() === '') throw new FlowProblem(`${at} needs "script", the text to run.`);
    if (Buffer.byteLength(script) > maxScriptBytes) throw new FlowProblem(`${at} has a script over ${maxScriptBytes / 1024} KiB.`);
    const priority = command.priority ?? 0;
    if (typeof priority !== 'number' || !Number.isSafeInteger(priority)) throw new FlowProblem(`${at}: priority must be a whole number.`);
    return {
      runtime,
      script,
      priority,
      before: optionalFlag(command.before, `${at}: before`),
      after: optionalFlag(command.after, `${at}: after`),
      verbose: optionalFlag(command.verbose, `${at}: verbose`),
      beforeInit: optionalFlag(command.beforeInit, `${at}: beforeInit`),
    };
  });
}

function scheduleList(value: unknown, where: string): FlowSchedule[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new FlowProblem(`${where} must be a list of {name, schedule}.`);
  return value.map((item, index) => {
    const entry = record(item, `${where}, entry ${index + 1}`);
    const name = entry.name;
    const schedule = entry.schedule;
    if (typeof name !== 'string' || typeof schedule !== 'string')
      throw new FlowProblem(`${where}, entry ${index + 1} needs "name" (a template) and "schedule" (a Quartz cron expression).`);
    return { name, schedule };
  });
}

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function record(value: unknown, where: string): Record<string, unknown> {
  if (!isRecord(value)) throw new FlowProblem(`${where} must be a mapping of keys to values.`);
  return value;
}

function optionalText(value: unknown, where: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new FlowProblem(`${where} must be text.`);
  return value;
}

function optionalFlag(value: unknown, where: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw new FlowProblem(`${where} must be true or false.`);
  return value;
}

/**
 * Inputs name global variables, as texts; YAML numbers and booleans are read as the text they were
 * written as. An empty mapping is kept: it says to take no global variable and no collection.
 */
function inputs(value: unknown, where: string): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  const entries = Object.entries(record(value, where));
  return Object.fromEntries(
    entries.map(([key, item]) => {
      if (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean') return [key, String(item)];
      throw new FlowProblem(`${where}: ${key} must be text.`);
    }),
  );
}
