import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import type { Response } from './harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- the description is a JSON document of every shape */
type Json = any;

/** One operation of the description: a method on a path template. */
export interface DescribedOperation {
  method: string;
  path: string;
  operationId: string;
  operation: Json;
  /** Path parameters, the path item's and the operation's. */
  parameters: Json[];
  /** The resource type of a JSON:API operation (its tag), or the tag of another group. */
  tag: string;
}

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const base = 'https://stratum.test/openapi.json';

/** A media type as a description names it: no charset, parameters as written, spaces after `;` normalized. */
const mediaTypeOf = (header: string | null) =>
  (header ?? '')
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part !== '' && !/^charset=/i.test(part))
    .join('; ');

const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The OpenAPI document the server serves, checked against the OpenAPI 3.1 schema, and the means to
 * hold a real answer of one of its operations against it: a status it lists, a media type it
 * lists for that status (no body where it lists none), and a body its schema accepts (JSON Schema
 * 2020-12, the dialect of OpenAPI 3.1, with formats).
 */
export class ApiDescription {
  private readonly validators = new Map<string, ValidateFunction>();
  /** Every mismatch found so far, one line each, so a run reports all of them at once. */
  readonly problems: string[] = [];
  /** The statuses seen per operation id. */
  readonly seen = new Map<string, Set<number>>();

  private constructor(
    readonly document: Json,
    private readonly ajv: Ajv2020,
  ) {}

  static async of(document: Json): Promise<ApiDescription> {
    const result = await new Validator().validate(structuredClone(document));
    if (!result.valid) assert.fail(`not a valid OpenAPI document: ${JSON.stringify(result.errors ?? null).slice(0, 4000)}`);
    const ajv = new Ajv2020({ allErrors: true, strictTypes: false, strictRequired: false });
    formats.default(ajv);
    // Members of an OpenAPI document around its schemas, which a JSON pointer passes through.
    ajv.addVocabulary(['openapi', 'info', 'servers', 'paths', 'components', 'security', 'tags']);
    ajv.addSchema(document, base);
    return new ApiDescription(document, ajv);
  }

  operations(): DescribedOperation[] {
    return Object.entries(this.document.paths as Record<string, Json>).flatMap(([path, item]) =>
      Object.entries(item as Record<string, Json>)
        .filter(([method]) => methods.includes(method))
        .map(([method, operation]) => ({
          method,
          path,
          operationId: String(operation.operationId),
          operation,
          parameters: [...(item.parameters ?? []), ...(operation.parameters ?? [])].filter((p: Json) => p.in === 'path'),
          tag: String(operation.tags?.[0] ?? ''),
        })),
    );
  }

  /** A schema of the components, by name. */
  schema(name: string): Json {
    return this.document.components.schemas[name];
  }

  /** Holds a real answer against the operation's description; a mismatch is recorded in `problems`. */
  check(described: DescribedOperation, response: Response, request: string): void {
    const { method, path, operation } = described;
    const where = `${method.toUpperCase()} ${path} (${request}) answered ${response.status}`;
    const statuses = this.seen.get(described.operationId) ?? new Set<number>();
    statuses.add(response.status);
    this.seen.set(described.operationId, statuses);
    const status = String(response.status);
    // A response written once among the components and named by a reference.
    const named = /^#\/components\/responses\/(.+)$/.exec(String(operation.responses?.[status]?.$ref ?? ''))?.[1];
    const answer = named === undefined ? operation.responses?.[status] : this.document.components.responses[named];
    const at = named === undefined ? ['paths', path, method, 'responses', status] : ['components', 'responses', named];
    if (answer === undefined) {
      this.problems.push(`${where}, a status it does not list: ${response.text.slice(0, 300)}`);
      return;
    }
    if (answer.content === undefined) {
      if (response.text !== '') this.problems.push(`${where} with a body, where it lists none: ${response.text.slice(0, 300)}`);
      return;
    }
    const mediaType = mediaTypeOf(response.headers.get('content-type'));
    if (answer.content[mediaType] === undefined) {
      this.problems.push(`${where} as ${mediaType}, not ${Object.keys(answer.content).join(' or ')}`);
      return;
    }
    if (answer.content[mediaType].schema === undefined) return;
    const pointer = [...at, 'content', mediaType, 'schema'].map(escape).join('/');
    const validate = this.validator(pointer);
    if (!validate(response.body)) {
      const errors = this.ajv.errorsText(validate.errors, { separator: '; ', dataVar: 'body' });
      this.problems.push(`${where} with a body its schema refuses: ${errors.slice(0, 600)} -- ${response.text.slice(0, 300)}`);
    }
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.validators.get(pointer);
    if (validate === undefined) {
      validate = this.ajv.compile({ $ref: `${base}#/${pointer}` });
      this.validators.set(pointer, validate);
    }
    return validate;
  }
}
