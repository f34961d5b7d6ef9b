/**
 * A stand-in for the `terraform` (or `tofu`) command that follows the CLI contract Stratum relies
 * on: init, plan, apply, destroy, show -json, output -json and state pull against the http state
 * backend, with Terraform's exit codes, request sequence, state format and interrupt handling.
 * docs/behaviour.md lists what it models and what it refuses.
 */
import fs from 'node:fs';
import path from 'node:path';
import { applyPlan } from './apply.ts';
import { ConfigurationError, readConfiguration, type BackendBlock } from './configuration.ts';
import { backendSettings, HttpState, standInVersion } from './http-state.ts';
import { hasChanges, makePlan, readPlanFile, refuseStalePlan, writePlanFile, type Plan } from './plan.ts';
import { Refusal } from './refusal.ts';
import { needsUpload, nextState, type StateV4 } from './state.ts';
import { Diagnostic, readVariables } from './values.ts';
import { applySummary, outputsJson, planJson, planLines, stateJson } from './views.ts';

const directory = process.cwd();
const marker = path.join(directory, '.terraform', 'stand-in-backend.json');
const print = (line: string) => process.stdout.write(`${line}\n`);

/**
 * The first interrupt (SIGINT, or SIGTERM, which Terraform 0.13 treats alike) asks for a graceful
 * stop; a second cancels the apply: Terraform 0.13 then still writes what finished and unlocks.
 */
const interrupt = new AbortController();
const cancel = new AbortController();
let interrupts = 0;
function onSignal(): void {
  interrupts++;
  if (interrupts === 1) {
    print('Interrupt received.\nPlease wait for Terraform to exit or data loss may occur.\nGracefully shutting down...\n');
    print('Stopping operation...');
    interrupt.abort();
  } else if (interrupts === 2) {
    process.stderr.write('Two interrupts received. Exiting immediately. Note that data\nloss may have occurred.\n');
    cancel.abort();
  }
}
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

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
  print('\nInitializing the backend...\n');
  print(
    'Successfully configured the backend "http"! Terraform will automatically\nuse this backend unless the backend configuration changes.\n',
  );
  await state.get();
  fs.mkdirSync(path.dirname(marker), { recursive: true });
  fs.writeFileSync(marker, JSON.stringify(block));
  print('Initializing provider plugins...');
  if (configuration.resources.length > 0) print('- Using hashicorp/null v3.1.0 (stand-in, nothing downloaded)');
  print('\nTerraform has been successfully initialized!');
  return 0;
}

/** Runs work with the state locked and read, and unlocks whatever happens, as Terraform's operations do. */
async function withState<T>(
  state: HttpState,
  operation: 'OperationTypePlan' | 'OperationTypeApply',
  work: (current: StateV4 | undefined) => Promise<T>,
  lock: boolean,
): Promise<T> {
  if (lock) await state.lock(operation);
  let result: T;
  try {
    const current = await state.get();
    if (interrupt.signal.aborted) throw new Diagnostic('Operation interrupted', 'Stopped before any change was made.');
    result = await work(current);
  } catch (error) {
    await state.unlock().catch(() => undefined);
    throw error;
  }
  await state.unlock();
  return result;
}

async function plan(args: string[]): Promise<number> {
  const flags = parseFlags(
    args,
    [...common, 'detailed-exitcode', 'destroy', 'refresh', 'lock', 'compact-warnings'],
    ['out', 'target', 'var', 'var-file', 'parallelism'],
  );
  if (flags.positionals.length > 0) throw new Refusal('plan with a directory argument');
  const { made } = await planHere(flags, 'OperationTypePlan');
  const out = flags.values.get('out')?.at(-1);
  for (const line of planLines(made, out)) print(line);
  if (out !== undefined) writePlanFile(path.resolve(directory, out), made);
  return flags.booleans.has('detailed-exitcode') && hasChanges(made) ? 2 : 0;
}

async function planHere(
  flags: Flags,
  operation: 'OperationTypePlan' | 'OperationTypeApply',
  then?: (made: Plan, current: StateV4 | undefined, state: HttpState) => Promise<number>,
) {
  const block = readBackendMarker();
  const configuration = await readConfiguration(directory);
  if (configuration.backend === undefined) throw new Refusal('local state (a configuration without a backend "http" block)');
  const state = new HttpState(backendSettings(block, process.env));
  let code = 0;
  const made = await withState(
    state,
    operation,
    async (current) => {
      const variables = await readVariables(configuration.variables, { env: process.env, directory, arguments: flags.variables });
      const made = makePlan(configuration, variables, current, {
        destroy: flags.booleans.has('destroy'),
        targets: flags.values.get('target') ?? [],
      });
      if (then !== undefined) code = await then(made, current, state);
      return made;
    },
    !flags.booleans.has('no-lock'),
  );
  return { state, made, code };
}

async function apply(args: string[], destroy: boolean): Promise<number> {
  const flags = parseFlags(
    args,
    [...common, 'auto-approve', 'refresh', 'lock', 'compact-warnings', ...(destroy ? [] : ['destroy'])],
    ['target', 'var', 'var-file', 'parallelism'],
  );
  if (destroy) flags.booleans.add('destroy');
  const [file, ...rest] = flags.positionals;
  if (rest.length > 0) throw new Refusal('more than one positional argument to apply');
  if (file !== undefined) {
    if (!fs.statSync(path.resolve(directory, file), { throwIfNoEntry: false })?.isFile())
      throw new Refusal(`apply with a directory argument (${file})`);
    if (flags.variables.length > 0)
      throw new Diagnostic(
        "Can't set variables when applying a saved plan",
        'The -var and -var-file options cannot be used when applying a saved plan file.',
      );
    const saved = readPlanFile(path.resolve(directory, file));
    const state = new HttpState(backendSettings(saved.backend, process.env));
    return withState(
      state,
      'OperationTypeApply',
      async (current) => {
        refuseStalePlan(saved, current);
        return applyAndSave(saved, current, state, false);
      },
      !flags.booleans.has('no-lock'),
    );
  }
  if (!flags.booleans.has('auto-approve'))
    throw new Refusal(`${destroy ? 'destroy' : 'apply'} without -auto-approve or a plan file (it would ask for approval)`);
  const { code } = await planHere(flags, 'OperationTypeApply', async (made, current, state) => {
    for (const line of planLines(made, undefined)) print(line);
    print('');
    return applyAndSave(made, current, state, destroy);
  });
  return code;
}

async function applyAndSave(plan: Plan, current: StateV4 | undefined, state: HttpState, destroyCommand: boolean): Promise<number> {
  const result = await applyPlan(plan, current, { directory, interrupt: interrupt.signal, cancel: cancel.signal, destroyCommand, print });
  const snapshot = nextState(current, result.instances, result.outputs);
  if (needsUpload(current, snapshot)) {
    // With no snapshot read before, Terraform looks once more for one it ought to update.
    if (current === undefined) await state.get();
    await upload(state, snapshot);
    // Stopped gracefully, Terraform writes what it has as it stops and once more as it ends.
    const again = nextState(snapshot, result.instances, result.outputs);
    if (interrupt.signal.aborted && !cancel.signal.aborted && needsUpload(snapshot, again)) await upload(state, again);
  }
  for (const failure of result.failures) report(failure);
  if (result.failures.length > 0) return 1;
  for (const line of applySummary(destroyCommand, result.added, result.destroyed, snapshot)) print(line);
  return 0;
}

async function upload(state: HttpState, snapshot: StateV4): Promise<void> {
  try {
    await state.put(snapshot);
  } catch (error) {
    // Terraform keeps the state it could not upload beside the configuration.
    fs.writeFileSync(path.join(directory, 'errored.tfstate'), `${JSON.stringify(snapshot, null, 2)}\n`);
    throw error;
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
    // Terraform's show reads the state twice (once to load it, once for the JSON view).
    await readState();
    print(JSON.stringify(stateJson(await readState())));
    return 0;
  }
  const saved = readPlanFile(path.resolve(directory, file));
  // Terraform reads the stored state before it shows a saved plan, though the plan holds its own.
  await readState();
  print(JSON.stringify(planJson(saved)));
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

async function statePull(args: string[]): Promise<number> {
  parseFlags(args, [], []);
  const state = await readState();
  if (state !== undefined) print(JSON.stringify(state, null, 2));
  return 0;
}

function version(args: string[]): number {
  const flags = parseFlags(args, ['json'], []);
  if (flags.booleans.has('json')) {
    print(
      JSON.stringify(
        { terraform_version: standInVersion, terraform_revision: '', provider_selections: {}, terraform_outdated: false },
        null,
        2,
      ),
    );
  } else {
    print(`Terraform v${standInVersion}`);
  }
  return 0;
}

function report(error: unknown): void {
  if (error instanceof Diagnostic) process.stderr.write(`\nError: ${error.summary}\n\n${error.detail}\n\n`);
  else if (error instanceof Refusal || error instanceof ConfigurationError) process.stderr.write(`\nError: ${error.message}\n\n`);
  else process.stderr.write(`\nError: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n\n`);
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
if (interrupts > 0 && code === 0) code = 1;
// Pipes are written asynchronously: exit once everything printed has been handed over.
process.stdout.write('', () => process.exit(code));
