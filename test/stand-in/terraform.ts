/**
 * A stand-in for the `terraform` (or `tofu`) command that follows the CLI contract Stratum relies
 * on, as Terraform 1.11 keeps it: init, plan, apply, destroy, show -json, output -json and state
 * pull against the http state backend, with Terraform's exit codes, request sequence, state and
 * plan formats, interrupt handling and recovery file. docs/behaviour.md lists what it models and
 * what it refuses.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readConfiguration, type BackendBlock } from './configuration.ts';
import { backendSettings, HttpState } from './http-state.ts';
import { Interrupts } from './interrupts.ts';
import { outputsJson, planJson, stateJson } from './json-views.ts';
import { hasChanges, makePlan, readPlanFile, refuseStalePlan, targetedAddresses, writePlanFile, type Plan } from './plan.ts';
import { Refusal } from './refusal.ts';
import { applyAndSave } from './local-operation.ts';
import { StateManager } from './state-manager.ts';
import { snapshotOf, stateDocument, stateText, type StateV4 } from './state.ts';
import { Diagnostic, report } from './diagnostics.ts';
import { argumentValues, readVariables } from './variables.ts';
import { standInVersion } from './version.ts';
import { planLines, refreshLines } from './views.ts';

const directory = process.cwd();
const marker = path.join(directory, '.terraform', 'stand-in-backend.json');
const print = (line: string) => process.stdout.write(`${line}\n`);
/** Terraform drops its hints about what to run next when it runs in automation. */
const inAutomation = (process.env.TF_IN_AUTOMATION ?? '') !== '';
const interrupts = new Interrupts(print);

interface Flags {
  booleans: Set<string>;
  values: Map<string, string[]>;
  /** -var and -var-file in the order given, since later ones win. */
  variables: { kind: 'var' | 'var-file'; text: string }[];
  positionals: string[];
}

/** Go's flag syntax as Terraform uses it: -name, -name=value or -name value, one or two dashes. */
function parseFlags(args: string[], booleans: string[], values: string[]): Flags {
  const flags: Flags = { booleans: new Set(), values: new Map(), variables: [], positionals: [] };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (!arg.startsWith('-') || arg === '-') {
      flags.positionals.push(arg);
      continue;
    }
    const body = arg.replace(/^--?/, '');
    const equals = body.indexOf('=');
    const name = equals < 0 ? body : body.slice(0, equals);
    const inline = equals < 0 ? undefined : body.slice(equals + 1);
    if (booleans.includes(name)) {
      if (inline === undefined || inline === 'true') flags.booleans.add(name);
      // Some flags are on unless turned off (-lock, -refresh, -input): remember that they were.
      else if (inline === 'false') flags.booleans.add(`no-${name}`);
      else throw new Diagnostic('Invalid flag', `invalid boolean value "${inline}" for -${name}`);
      continue;
    }
    if (!values.includes(name)) throw new Refusal(`the option -${name}`);
    const value = inline ?? args[++i];
    if (value === undefined) throw new Diagnostic('Invalid flag', `flag needs an argument: -${name}`);
    if (name === 'var' || name === 'var-file') flags.variables.push({ kind: name, text: value });
    else flags.values.set(name, [...(flags.values.get(name) ?? []), value]);
  }
  return flags;
}

const common = ['no-color', 'input'];

function readBackendMarker(): BackendBlock {
  if (!fs.existsSync(marker)) {
    throw new Diagnostic(
      'Backend initialization required, please run "terraform init"',
      'Reason: Initial configuration of the requested backend "http"',
    );
  }
  return JSON.parse(fs.readFileSync(marker, 'utf8')) as BackendBlock;
}

async function init(args: string[]): Promise<number> {
  const flags = parseFlags(args, [...common, 'upgrade', 'reconfigure', 'get', 'backend'], ['backend-config']);
  if (flags.positionals.length > 0) throw new Refusal('init with a directory argument');
  const configuration = await readConfiguration(directory);
  if (configuration.backend === undefined) throw new Refusal('local state (a configuration without a backend "http" block)');
  const block: BackendBlock = { ...configuration.backend };
  for (const pair of flags.values.get('backend-config') ?? []) {
    const equals = pair.indexOf('=');
    if (equals <= 0) throw new Refusal(`-backend-config from a file (${pair})`);
    block[pair.slice(0, equals)] = pair.slice(equals + 1);
  }
  const state = new HttpState(backendSettings(block, process.env));
  const configured = fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === JSON.stringify(block);
  print('Initializing the backend...');
  if (!configured)
    print(
      '\nSuccessfully configured the backend "http"! Terraform will automatically\nuse this backend unless the backend configuration changes.',
    );
  await state.get();
  fs.mkdirSync(path.dirname(marker), { recursive: true });
  fs.writeFileSync(marker, JSON.stringify(block));
  print('Initializing provider plugins...');
  if (configuration.resources.length > 0) print('- terraform.io/builtin/terraform is built in to Terraform');
  print('\nTerraform has been successfully initialized!');
  return 0;
}

type Operation = 'OperationTypePlan' | 'OperationTypeApply';

/** Runs work with the state locked and read, and unlocks whatever happens, as Terraform's operations do. */
async function locked<T>(
  backend: HttpState,
  operation: Operation,
  lock: boolean,
  work: (manager: StateManager, current: StateV4 | undefined) => Promise<T>,
): Promise<T> {
  if (lock) await backend.lock(operation);
  const manager = new StateManager(backend);
  let result: T;
  try {
    const current = await manager.refresh();
    if (interrupts.halt.aborted) throw new Diagnostic('execution halted', '');
    result = await work(manager, current);
  } catch (error) {
    await backend.unlock().catch(() => undefined);
    throw error;
  }
  await backend.unlock();
  return result;
}

const planBooleans = [...common, 'detailed-exitcode', 'destroy', 'refresh', 'lock', 'compact-warnings'];
const planValues = ['out', 'target', 'replace', 'var', 'var-file', 'parallelism'];

async function plan(args: string[]): Promise<number> {
  const flags = parseFlags(args, planBooleans, planValues);
  if (flags.positionals.length > 0) throw new Refusal('plan with a directory argument');
  const out = flags.values.get('out')?.at(-1);
  const made = await planHere(flags, 'OperationTypePlan', (planned) => {
    for (const line of planLines(planned)) print(line);
    if (out !== undefined) writePlanFile(path.resolve(directory, out), planned);
    if (!inAutomation && hasChanges(planned)) {
      if (out === undefined)
        print(
          '\nNote: You didn\'t use the -out option to save this plan, so Terraform can\'t\nguarantee to take exactly these actions if you run "terraform apply" now.',
        );
      else
        print(
          `\nSaved the plan to: ${out}\n\nTo perform exactly these actions, run the following command to apply:\n    terraform apply ${JSON.stringify(out)}`,
        );
    }
    return Promise.resolve(0);
  });
  return flags.booleans.has('detailed-exitcode') && hasChanges(made.plan) ? 2 : made.code;
}

/** Reads the configuration and the state under the lock, plans, and hands the plan to `then`. */
async function planHere(
  flags: Flags,
  operation: Operation,
  then: (made: Plan, current: StateV4 | undefined, manager: StateManager) => Promise<number>,
): Promise<{ plan: Plan; code: number }> {
  const block = readBackendMarker();
  const configuration = await readConfiguration(directory);
  if (configuration.backend === undefined) throw new Refusal('local state (a configuration without a backend "http" block)');
  const backend = new HttpState(backendSettings(block, process.env));
  return locked(backend, operation, !flags.booleans.has('no-lock'), async (manager, current) => {
    const variables = await readVariables(configuration.variables, { env: process.env, directory, arguments: flags.variables });
    const targets = flags.values.get('target') ?? [];
    if (!flags.booleans.has('no-refresh')) {
      const instances = snapshotOf(current).instances;
      const refreshed = targetedAddresses(configuration, instances, { targets, destroy: false });
      for (const line of refreshLines(instances.filter((instance) => refreshed(instance.address)))) print(line);
    }
    const made = makePlan(configuration, variables, current, {
      destroy: flags.booleans.has('destroy'),
      targets,
      replaces: flags.values.get('replace') ?? [],
    });
    return { plan: made, code: await then(made, current, manager) };
  });
}

async function apply(args: string[], destroy: boolean): Promise<number> {
  const flags = parseFlags(
    args,
    [...common, 'auto-approve', 'refresh', 'lock', 'compact-warnings', ...(destroy ? [] : ['destroy'])],
    ['target', 'replace', 'var', 'var-file', 'parallelism'],
  );
  if (destroy) flags.booleans.add('destroy');
  const [file, ...rest] = flags.positionals;
  if (rest.length > 0) throw new Refusal('more than one positional argument to apply');
  if (file !== undefined) {
    if (!fs.statSync(path.resolve(directory, file), { throwIfNoEntry: false })?.isFile())
      throw new Refusal(`apply with a directory argument (${file})`);
    const saved = readPlanFile(path.resolve(directory, file));
    const backend = new HttpState(backendSettings(saved.backend, process.env));
    return locked(backend, 'OperationTypeApply', !flags.booleans.has('no-lock'), async (manager, current) => {
      refuseStalePlan(saved, current);
      await refuseChangedVariables(saved, flags);
      return applyAndSave(saved, current, manager, { directory, print, interrupts, destroyCommand: false });
    });
  }
  if (!flags.booleans.has('auto-approve'))
    throw new Refusal(`${destroy ? 'destroy' : 'apply'} without -auto-approve or a plan file (it would ask for approval)`);
  const { code } = await planHere(flags, 'OperationTypeApply', async (made, current, manager) => {
    for (const line of planLines(made)) print(line);
    if (interrupts.halt.aborted) throw new Diagnostic('execution halted', '');
    return applyAndSave(made, current, manager, { directory, print, interrupts, destroyCommand: destroy });
  });
  return code;
}

/** A saved plan holds its variables' values: -var and -var-file may only repeat them. */
async function refuseChangedVariables(saved: Plan, flags: Flags): Promise<void> {
  const given = await argumentValues(saved.configuration.variables, { env: {}, directory, arguments: flags.variables });
  for (const [name, value] of given) {
    const planned = saved.variables[name];
    if (planned === undefined || JSON.stringify(planned.given) === JSON.stringify(value.given)) continue;
    throw new Diagnostic(
      "Can't change variable when applying a saved plan",
      `The variable ${name} cannot be set using the -var and -var-file options when applying a saved plan file, because a saved plan includes the variable values that were set when it was created. The saved plan specifies ${JSON.stringify(planned.given)} as the value whereas during apply the value ${JSON.stringify(value.given)} was set by a CLI argument. To declare an ephemeral variable which is not saved in the plan file, use ephemeral = true.`,
    );
  }
}

/** Reads the state without locking it, as show, output and state pull do. */
async function readState(): Promise<StateV4 | undefined> {
  return new HttpState(backendSettings(readBackendMarker(), process.env)).get();
}

async function show(args: string[]): Promise<number> {
  const flags = parseFlags(args, ['no-color', 'json'], []);
  if (!flags.booleans.has('json')) throw new Refusal('show without -json');
  const [file, ...rest] = flags.positionals;
  if (rest.length > 0) throw new Refusal('more than one positional argument to show');
  if (file === undefined) {
    print(JSON.stringify(stateJson(await readState())));
    return 0;
  }
  print(JSON.stringify(planJson(readPlanFile(path.resolve(directory, file)))));
  return 0;
}

async function output(args: string[]): Promise<number> {
  const flags = parseFlags(args, ['no-color', 'json'], []);
  if (!flags.booleans.has('json')) throw new Refusal('output without -json');
  const outputs = outputsJson(await readState());
  const [name, ...rest] = flags.positionals;
  if (rest.length > 0) throw new Refusal('more than one positional argument to output');
  if (name === undefined) {
    print(JSON.stringify(outputs, null, 2));
    return 0;
  }
  const one = outputs[name] as { value: unknown } | undefined;
  if (one === undefined)
    throw new Diagnostic(`Output "${name}" not found`, 'The output variable requested could not be found in the state file.');
  print(JSON.stringify(one.value));
  return 0;
}

/** The state as Terraform would write it (an empty one when there is none), and a blank line. */
async function statePull(args: string[]): Promise<number> {
  parseFlags(args, [], []);
  const state = await readState();
  print(stateText(state ?? stateDocument(undefined, '', 0)));
  return 0;
}

function version(args: string[]): number {
  const flags = parseFlags(args, ['json'], []);
  if (flags.booleans.has('json')) {
    print(
      JSON.stringify(
        { terraform_version: standInVersion, platform: 'linux_amd64', provider_selections: {}, terraform_outdated: false },
        null,
        2,
      ),
    );
  } else {
    print(`Terraform v${standInVersion}\non linux_amd64`);
  }
  return 0;
}

async function main(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  switch (command) {
    case 'version':
    case '-version':
    case '--version':
    case '-v':
      return version(rest);
    case 'init':
      return init(rest);
    case 'plan':
      return plan(rest);
    case 'apply':
      return apply(rest, false);
    case 'destroy':
      return apply(rest, true);
    case 'show':
      return show(rest);
    case 'output':
      return output(rest);
    case 'state':
      if (rest[0] === 'pull') return statePull(rest.slice(1));
      throw new Refusal(`the command "state ${rest[0] ?? ''}"`);
    default:
      throw new Refusal(`the command "${command ?? ''}"`);
  }
}

let code: number;
try {
  code = await main(process.argv.slice(2));
} catch (error) {
  report(error);
  code = 1;
}
if (interrupts.halt.aborted && code === 0) code = 1;
// Pipes are written asynchronously: exit once everything printed has been handed over.
process.stdout.write('', () => process.exit(code));
