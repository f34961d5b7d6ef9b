import { createRequire } from 'node:module';

/**
 * HashiCorp's HCL parser, compiled to WebAssembly. Loaded without its type declarations: they pull
 * in the DOM library, which would change Node's own stream types for the whole program.
 */
const parser = createRequire(import.meta.url)('@cdktf/hcl2json') as { parse(file: string, text: string): Promise<unknown> };

/** An HCL file's body in HCL's JSON form (expressions wrapped in `${...}`); throws the parser's message. */
export function parseHcl(file: string, text: string): Promise<unknown> {
  return parser.parse(file, text);
}
