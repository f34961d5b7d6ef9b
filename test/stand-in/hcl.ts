/**
 * The HCL parser (HashiCorp's own, compiled to WebAssembly), loaded without its type declarations:
 * they reference the DOM library, which would change the types of fetch, Headers and streams for
 * every file the test project compiles.
 */
import { createRequire } from 'node:module';

interface Hcl2Json {
  /** The file as Terraform's JSON syntax: blocks as nested objects, expressions as "${...}" strings. */
  parse(filename: string, contents: string): Promise<Record<string, unknown>>;
}

const hcl2json = createRequire(import.meta.url)('@cdktf/hcl2json') as Hcl2Json;

export const parseHcl = (filename: string, contents: string) => hcl2json.parse(filename, contents);
