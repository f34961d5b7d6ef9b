import { parseHcl } from './hcl.js';

/** A module's input variable, as its `variable` block declares it. */
export interface ModuleInput {
  name: string;
  type: string | null;
  description: string | null;
  /** The default as HCL's JSON form gives it (`${...}` around expressions); null when there is none. */
  default: unknown;
  required: boolean;
  sensitive: boolean;
}

export interface ModuleOutput {
  name: string;
  description: string | null;
  sensitive: boolean;
}

export interface ModuleInterface {
  inputs: ModuleInput[];
  outputs: ModuleOutput[];
  /** The files HashiCorp's HCL parser refused, with its message; their blocks are missing above. */
  unreadable: { file: string; problem: string }[];
}

type Blocks = Record<string, Record<string, unknown>[] | undefined>;

/** Reads the `variable` and `output` blocks of a module's `.tf` files with HashiCorp's own HCL parser. */
export async function describeModule(files: readonly { name: string; text: string }[]): Promise<ModuleInterface> {
  const found: ModuleInterface = { inputs: [], outputs: [], unreadable: [] };
  for (const file of files) {
    let document: Record<string, unknown>;
    try {
      document = (await parseHcl(file.name, file.text)) as Record<string, unknown>;
    } catch (error) {
      found.unreadable.push({ file: file.name, problem: String(error instanceof Error ? error.message : error).slice(0, 500) });
      continue;
    }
    for (const [name, body] of blocks(document.variable)) {
      const type = body.type;
      found.inputs.push({
        name,
        type: typeof type === 'string' ? unwrap(type) : null,
        description: typeof body.description === 'string' ? body.description : null,
        default: body.default ?? null,
        required: !('default' in body),
        sensitive: body.sensitive === true,
      });
    }
    for (const [name, body] of blocks(document.output)) {
      found.outputs.push({
        name,
        description: typeof body.description === 'string' ? body.description : null,
        sensitive: body.sensitive === true,
      });
    }
  }
  found.inputs.sort((a, b) => a.name.localeCompare(b.name));
  found.outputs.sort((a, b) => a.name.localeCompare(b.name));
  return found;
}

/** The labelled blocks of one kind: the parser gives `{label: [body, ...]}`. */
function blocks(kind: unknown): [string, Record<string, unknown>][] {
  if (kind === null || typeof kind !== 'object') return [];
  return Object.entries(kind as Blocks).flatMap(([name, bodies]) =>
    Array.isArray(bodies) && bodies[0] !== undefined ? [[name, bodies[0]]] : [],
  );
}

/** A type expression as written: the JSON form wraps expressions in `${...}`. */
function unwrap(expression: string): string {
  const match = /^\$\{([\s\S]*)\}$/.exec(expression);
  return match?.[1] ?? expression;
}
