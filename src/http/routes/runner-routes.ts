import type { FastifyInstance, FastifyRequest } from 'fastify';
import { credentialCaller } from '../../auth/caller.js';
import { presentedToken } from '../../auth/credentials.js';
import { unauthorized } from '../../errors.js';
import { runnerCalls, runStatuses, type AgentIdentity, type AgentRunner, type RunnerPort } from '../../runs/index.js';
import type { JsonSchema } from './described-route.js';

/** Where agents speak the runner port: one POST per call, `{"args": [...]}` in, `{"result": ...}` out. */
export const runnerPrefix = '/runner/v1';

/** A saved plan (base64) or a state a run left is the largest argument; the state backend's bound, twice, covers either as JSON text. */
const bodyLimitFor = (stateMaxBytes: number) => 2 * stateMaxBytes + 1024 * 1024;

const id: JsonSchema = { type: 'string', minLength: 1, maxLength: 64 };
const executor: JsonSchema = { type: 'string', minLength: 1, maxLength: 128 };
const count: JsonSchema = { type: 'integer', minimum: 0, maximum: 2_147_483_647 };
const text: JsonSchema = { type: 'string' };
const status: JsonSchema = { type: 'string', enum: [...runStatuses] };
const object = (properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

/**
 * Each call's arguments, in the port's order: what an agent may send, checked before anything is
 * read. A step's log is bounded as the executor keeps it (STRATUM_STEP_LOG_KIB), with room for a line's overrun.
 */
const argumentsOf = (logCharacters: number): Record<keyof RunnerPort, JsonSchema[]> => ({
  claim: [executor, count],
  renew: [id, executor, count],
  jobRunning: [id, executor, object({ commitId: { type: 'string', maxLength: 256 }, planChanges: { type: 'boolean' } })],
  jobWaits: [id, executor, { type: 'string', maxLength: 256 }],
  jobEnded: [id, executor, { anyOf: [{ type: 'null' }, object({ status, reason: { type: 'string', maxLength: 4096 } }, ['status'])] }],
  stepMoved: [id, id, object({ to: status, output: { type: 'string', maxLength: 2048 } }, ['to'])],
  lockWorkspace: [id],
  stateCredential: [id],
  writeLog: [
    id,
    object({ text: { type: 'string', maxLength: logCharacters + 64 * 1024 }, trimmed: count, finished: { type: 'boolean' } }, [
      'text',
      'trimmed',
      'finished',
    ]),
  ],
  savePlanView: [id, {}],
  savePlan: [id, text],
  readPlan: [id],
  keepState: [
    object({ jobId: id, organizationId: id, workspaceId: id, workdir: { type: 'string', maxLength: 4096 } }, [
      'jobId',
      'organizationId',
      'workspaceId',
      'workdir',
    ]),
    text,
  ],
  seen: [executor, count, { type: 'string', maxLength: 64 }],
  left: [executor],
  recover: [executor, { type: 'boolean' }],
  fireSchedules: [{ type: 'string', maxLength: 64 }],
  versionsInUse: [],
});

/**
 * The runner API: the runner port (runs/runner-port.ts) over HTTP for `stratum agent`, which holds
 * neither the database nor the keys. Only an agent token opens it; every call is scoped to what is
 * the agent's own (runs/agent-port.ts). Errors are JSON:API error documents, as everywhere.
 */
export function runnerRoutes(
  api: FastifyInstance,
  { agents, stateMaxBytes, logCharacters }: { agents: AgentRunner; stateMaxBytes: number; logCharacters: number },
): Promise<void> {
  const schemas = argumentsOf(logCharacters);
  const identify = async (request: FastifyRequest): Promise<AgentIdentity> => {
    const token = presentedToken(request.headers.authorization, { basic: false });
    if (typeof token !== 'string') throw unauthorized(token.detail, !token.missing);
    const agent = await agents.verify(token);
    if (agent === undefined) throw unauthorized('The token is not a live agent token (`stratum agent-token create` issues one).', true);
    // In no group, it reaches nothing of the API; rate limits leave it be (the jobs it runs at once bound it).
    request.caller = credentialCaller(`agent:${agent.tokenId}`, 'agentToken');
    return agent;
  };
  const agentOf = new WeakMap<FastifyRequest, AgentIdentity>();
  api.addHook('onRequest', async (request) => {
    agentOf.set(request, await identify(request));
  });
  for (const call of runnerCalls) {
    const items = schemas[call];
    api.post(
      `${runnerPrefix}/${call}`,
      {
        bodyLimit: bodyLimitFor(stateMaxBytes),
        schema: {
          body: {
            type: 'object',
            required: ['args'],
            additionalProperties: false,
            properties: {
              args:
                items.length === 0
                  ? { type: 'array', maxItems: 0 }
                  : { type: 'array', items, additionalItems: false, minItems: items.length },
            },
          },
        },
      },
      async (request, reply) => {
        const agent = agentOf.get(request);
        if (agent === undefined) throw unauthorized('An agent token is required.', false);
        const { args } = request.body as { args: unknown[] };
        const port = agents.portFor(agent);
        const answer = await (port[call] as (...values: unknown[]) => Promise<unknown>)(...args);
        return reply.type('application/json').send({ result: answer ?? null });
      },
    );
  }
  return Promise.resolve();
}
