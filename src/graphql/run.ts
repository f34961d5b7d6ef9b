import {
  execute,
  getOperationAST,
  GraphQLError,
  Kind,
  OperationTypeNode,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { isContention, type Session } from '../engine/index.js';
import { ApiError } from '../errors.js';
import type { Registry, UnmodeledRecord } from '../model/index.js';
import { RequestContext } from './context.js';
import { apiErrorObjects, resultErrors, type GraphQLErrorObject, type UnexpectedError } from './errors.js';
import { checkLimits, limits } from './limits.js';
import type { DerivedList } from './derived.js';
import { buildGraphQLSchema } from './schema.js';

/** The GraphQL transport of the declarations: their schema, generated once at start. */
export interface GraphQLService {
  registry: Registry;
  schema: GraphQLSchema;
}

export function graphqlService(
  registry: Registry,
  unmodeled: Readonly<Record<string, UnmodeledRecord>>,
  derived: readonly DerivedList[] = [],
): GraphQLService {
  return { registry, schema: buildGraphQLSchema(registry, unmodeled, derived) };
}

export interface GraphQLBody {
  data?: unknown;
  errors?: GraphQLErrorObject[];
}

/** A GraphQL request, read from a POST's body or a GET's URL. */
export interface GraphQLRequest {
  query: string;
  variables: Record<string, unknown>;
  operationName: string | undefined;
  /** Sent with a safe method (GET), which changes nothing: it runs queries, never a mutation. */
  safe: boolean;
}

/**
 * Answers one GraphQL request on the caller's session. Everything after reading the request is
 * answered as GraphQL answers, errors included: syntax and validation errors, the limits, and every
 * error of the engine, as entries of `errors`; only a mutation sent with a safe method is refused
 * before it runs (an ApiError: 405, `Allow: POST`), as GraphQL over HTTP requires. A query reads
 * through the session; a mutation runs as one batch, committed only when every operation in it
 * succeeded and otherwise rolled back as a whole (`data` null).
 */
export async function answerGraphQL(
  service: GraphQLService,
  session: Session,
  request: GraphQLRequest,
  unexpected: UnexpectedError,
): Promise<GraphQLBody> {
  const { schema, registry } = service;
  const prepared = prepare(schema, request, unexpected);
  if ('errors' in prepared) return prepared;
  if (request.safe && prepared.operation?.operation === OperationTypeNode.MUTATION) {
    const detail = 'A GET runs queries only: send a mutation with POST.';
    throw new ApiError(405, { code: 'method_not_allowed', detail }, { allow: ['POST'] });
  }
  const executeAs = async (context: RequestContext) => {
    const { document } = prepared;
    const result = await execute({
      schema,
      document,
      variableValues: request.variables,
      operationName: request.operationName,
      contextValue: context,
    });
    return { result, overflow: context.overflow };
  };
  if (prepared.operation?.operation !== OperationTypeNode.MUTATION) {
    const { result, overflow } = await executeAs(new RequestContext(session, registry, false));
    return overflow === undefined ? shaped(result, unexpected) : { errors: overflowErrors(overflow) };
  }
  try {
    return await session.batch(async (batch) => {
      const { result, overflow } = await executeAs(new RequestContext(batch, registry, true));
      // A mutation that lost to a concurrent transaction is rolled back and runs again, whole.
      const contention = result.errors?.map((error) => error.originalError).find(isContention);
      if (contention !== undefined) throw contention;
      if ((result.errors ?? []).length > 0 || overflow !== undefined) throw new RolledBack(result.errors ?? [], overflow);
      return shaped(result, unexpected);
    });
  } catch (error) {
    if (error instanceof ApiError) return { data: null, errors: apiErrorObjects(error) };
    if (!(error instanceof RolledBack)) throw error;
    return { data: null, errors: error.overflow === undefined ? resultErrors(error.errors, unexpected) : overflowErrors(error.overflow) };
  }
}

/** The document of a request, parsed, validated and within the limits; otherwise the errors that say why not. */
function prepare(
  schema: GraphQLSchema,
  request: GraphQLRequest,
  unexpected: UnexpectedError,
): { document: DocumentNode; operation: OperationDefinitionNode | null | undefined } | { errors: GraphQLErrorObject[] } {
  let document: DocumentNode;
  try {
    document = parse(request.query, { maxTokens: limits.tokens });
  } catch (error) {
    if (error instanceof GraphQLError) return { errors: [syntaxError(error)] };
    throw error;
  }
  const invalid = validate(schema, document, specifiedRules, { maxErrors: 20 });
  // graphql-js gives up comparing the fields of a selection past a budget of its own.
  if (invalid.some((error) => error.message === 'Validation aborted.')) {
    const message = 'The query repeats fields too often to be checked; ask for fewer.';
    return { errors: [{ message, extensions: { code: 'query_too_complex', status: 400 } }] };
  }
  if (invalid.length > 0) return { errors: resultErrors(invalid, unexpected) };
  // Without an operation to run (several, and no operationName), execution says so.
  const operation = getOperationAST(document, request.operationName);
  if (operation !== null && operation !== undefined) {
    const fragments = document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION);
    try {
      checkLimits(schema, operation, Object.fromEntries(fragments.map((d) => [d.name.value, d])));
    } catch (error) {
      if (error instanceof ApiError) return { errors: apiErrorObjects(error) };
      throw error;
    }
  }
  return { document, operation };
}

type Overflow = RequestContext['overflow'] & object;

const overflowErrors = ({ error, path }: Overflow) => apiErrorObjects(error, { path });

/** Ends a mutation's transaction without committing it: one of its operations failed. */
class RolledBack extends Error {
  constructor(
    readonly errors: readonly GraphQLError[],
    readonly overflow: Overflow | undefined,
  ) {
    super('rolled back');
  }
}

function shaped(result: ExecutionResult, unexpected: UnexpectedError): GraphQLBody {
  const body: GraphQLBody = { data: result.data ?? null };
  if (result.errors !== undefined && result.errors.length > 0) body.errors = resultErrors(result.errors, unexpected);
  return body;
}

function syntaxError(error: GraphQLError): GraphQLErrorObject {
  if (/contains more th\w+ \d+ tokens/.test(error.message)) {
    return { message: `The query has more than ${limits.tokens} tokens.`, extensions: { code: 'query_too_large', status: 400 } };
  }
  return {
    message: error.message,
    ...(error.locations === undefined ? {} : { locations: error.locations }),
    extensions: { code: 'invalid_query', status: 400 },
  };
}

const refuse = (detail: string) => new ApiError(400, { code: 'invalid_request', detail });

/** A POST's body, `{query, variables, operationName}`, as Elide reads a GraphQL request; a 400 when it is none. */
export function requestFromBody(body: unknown): GraphQLRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw refuse('The body must be a JSON object with a query.');
  const { query, variables, operationName } = body as Record<string, unknown>;
  if (typeof query !== 'string' || query.trim() === '') throw refuse('A `query` key is required.');
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) {
    throw refuse('variables must be an object.');
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string')
    throw refuse('operationName must be a string.');
  return {
    query,
    variables: (variables ?? {}) as Record<string, unknown>,
    operationName: operationName ?? undefined,
    safe: false,
  };
}

/**
 * A GET's query parameters, as GraphQL over HTTP sends them: `query`, and `variables` as JSON
 * text and `operationName` when given (empty is absent, as is `extensions`); a 400 when they are
 * no request.
 */
export function requestFromQuery(params: Readonly<Record<string, string | string[] | undefined>>): GraphQLRequest {
  const one = (name: string): string | undefined => {
    const value = params[name];
    if (Array.isArray(value)) throw refuse(`The ${name} parameter is given more than once.`);
    return value === '' ? undefined : value;
  };
  const query = one('query');
  if (query === undefined || query.trim() === '') throw refuse('A `query` parameter is required.');
  const text = one('variables');
  let variables: unknown = null;
  if (text !== undefined) {
    try {
      variables = JSON.parse(text);
    } catch {
      throw refuse('variables must be a JSON object.');
    }
  }
  if (typeof variables !== 'object' || Array.isArray(variables)) throw refuse('variables must be a JSON object.');
  return { query, variables: (variables ?? {}) as Record<string, unknown>, operationName: one('operationName'), safe: true };
}
