import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { FlowProblem, flowSteps, isRecord, refusedField, type FlowReading, type FlowStep } from './flow.js';

/**
 * A template's `tcl` read as Terrakube reads it at job time: standard base64 of a YAML document
 * whose `flow` lists the steps. Anything else is free text to the API (the interface's `tcl` is any
 * string), so it is only read as a flow when a job starts, or when it is saved looking like one.
 */

/** What is wrong with a template's flow, and the line of its YAML at fault when there is one. */
export interface FlowFault {
  problem: string;
  line: number | undefined;
}

type Parsed = { document: Document; lines: LineCounter; value: unknown } | { fault: FlowFault };

/**
 * Reads the flow a job runs; a template that cannot run is found here, before anything runs, and
 * the job fails with the reason.
 */
export function readFlow(tcl: string): FlowReading {
  const text = decodeBase64(tcl.trim());
  if (text === undefined) return { problem: 'The template is not base64 text (Terrakube clients send its YAML base64-encoded).' };
  const parsed = parseFlow(text);
  if ('fault' in parsed) return { problem: parsed.fault.problem };
  const fault = stepsFault(parsed);
  return 'steps' in fault ? fault : { problem: fault.problem };
}

/**
 * Why a template must not be saved, with the line at fault: a base64 YAML text that declares a
 * top-level `flow` is checked as its jobs would read it (YAML errors, unknown step types and keys,
 * duplicate step numbers, missing fields, fields Stratum would not act on). Other text is stored as
 * given, as Terrakube stores templates, and a job of it fails at start with the reason.
 */
export function flowFaultAtSave(tcl: string): FlowFault | undefined {
  const text = decodeBase64(tcl.trim());
  if (text === undefined || !/^flow[ \t]*:/m.test(text)) return undefined;
  const parsed = parseFlow(text);
  if ('fault' in parsed) return parsed.fault;
  // An empty flow (`flow:`, `flow: []`) is a placeholder clients save, and Terrakube stores: it runs nothing, and its jobs say so.
  if (isEmptyFlow(parsed.value)) return undefined;
  const checked = stepsFault(parsed);
  return 'steps' in checked ? undefined : checked;
}

function parseFlow(text: string): Parsed {
  const lines = new LineCounter();
  const document = parseDocument(text, { uniqueKeys: true, lineCounter: lines });
  const [error] = document.errors;
  if (error !== undefined) {
    const what = (error.message.split('\n')[0] ?? error.code).replace(/ at line \d+, column \d+:?$/, '');
    return { fault: { problem: `The template is not YAML: ${what}.`, line: error.linePos?.[0].line } };
  }
  try {
    return { document, lines, value: document.toJS({ maxAliasCount: 0 }) };
  } catch {
    // Aliases let a few bytes expand into a very large value; flows never need them.
    return { fault: { problem: 'The template uses YAML aliases (*name), which Stratum does not expand.', line: undefined } };
  }
}

function stepsFault(parsed: { document: Document; lines: LineCounter; value: unknown }): { steps: FlowStep[] } | FlowFault {
  const faultOf = (problem: FlowProblem): FlowFault => ({ problem: problem.message, line: lineOf(parsed, problem.at) });
  const refused = refusedField(parsed.value);
  if (refused !== undefined) return faultOf(refused);
  try {
    return { steps: flowSteps(parsed.value) };
  } catch (problem) {
    if (problem instanceof FlowProblem) return faultOf(problem);
    throw problem;
  }
}

/** The line of the deepest node on `path` the document holds (a mapping's key line for a key). */
function lineOf({ document, lines }: { document: Document; lines: LineCounter }, path: readonly (string | number)[]): number | undefined {
  let node: unknown = document.contents;
  let offset: number | undefined;
  const startOf = (value: unknown) => (value as { range?: [number, number, number] | null } | null | undefined)?.range?.[0];
  for (const segment of path) {
    if (isSeq(node) && typeof segment === 'number') {
      node = node.items[segment];
      offset = startOf(node) ?? offset;
    } else if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && item.key.value === segment);
      offset = startOf(pair?.key) ?? offset;
      node = pair?.value;
    } else break;
  }
  return offset === undefined ? undefined : lines.linePos(offset).line;
}

/** A flow that lists nothing (`flow:`, `flow: []`): a placeholder, which runs nothing. */
function isEmptyFlow(value: unknown): boolean {
  if (!isRecord(value) || Object.keys(value).length !== 1) return false;
  return value.flow === null || (Array.isArray(value.flow) && value.flow.length === 0);
}

/** Standard base64, padded or not; undefined for anything else (Buffer.from would skip bad characters). */
function decodeBase64(text: string): string | undefined {
  if (text.length === 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(text) || text.length % 4 === 1) return undefined;
  return Buffer.from(text, 'base64').toString('utf8');
}
