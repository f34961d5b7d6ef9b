import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Authenticator } from '../../auth/authenticator.js';
import type { Caller } from '../../auth/caller.js';
import { IdentityProviderUnavailableError } from '../../auth/oidc.js';
import { presentedToken } from '../../auth/credentials.js';
import type { JobLiveness } from '../../runs/index.js';
import { InvalidTokenError } from '../../auth/tokens.js';
import type { StateSettings } from '../../config.js';
import { LockHeld, type Engine, type StateAccess, type WorkspaceState } from '../../engine/index.js';
import { ApiError, badRequest, notFound } from '../../errors.js';
import type { Row, StateRecords } from '../../model/index.js';
import { requestProvenance } from './request-session.js';
import { shownState } from '../../terraform/state-json.js';

export interface StateRouteOptions {
  engine: Engine;
  authenticator: Authenticator;
  records: StateRecords;
  settings: StateSettings;
  /** Whether the job a presented state credential names still runs: a credential works only then. */
  jobRuns: JobLiveness;
}

/** The prefix of every state path; a workspace's state lives under it. */
export const statePrefix = '/tfstate/v1/organization/:organizationId/workspace/:workspaceId';

/** The methods Terraform's http backend locks and unlocks with by default; Fastify learns them before any route. */
export const lockMethods = ['LOCK', 'UNLOCK'] as const;

const challenge = 'Basic realm="Stratum state", charset="UTF-8"';

/**
 * Terraform's http state backend and the web UI's state pages, per workspace:
 * `state` (GET the current state, 204 when none; POST a new one, `?ID=` naming the lock it holds),
 * `lock` (LOCK or POST takes the lock, 423 with the holder's lock info when another holds it;
 * UNLOCK or DELETE releases it, 409 with the holder's info when the body names another lock, and
 * without a body force-unlocks), `state/terraform.tfstate` (the current state, the UI's download),
 * `state/{historyId}.json` and `.raw.json` (one version in `show -json` form and as stored) and
 * `PUT rollback/{historyId}.json`. Credentials: Basic auth whose password is a bearer token (or a
 * job's state credential), or the bearer token itself as the web UI sends it.
 */
export function stateRoutes(api: FastifyInstance, { engine, authenticator, records, settings, jobRuns }: StateRouteOptions): Promise<void> {
  // State is Terraform's JSON, taken byte for byte so its Content-MD5 can be checked.
  api.removeAllContentTypeParsers();
  api.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: settings.maxBytes }, (_request, body, done) => {
    done(null, body);
  });

  const stateOf = async (request: FastifyRequest, reply: FastifyReply): Promise<WorkspaceState> => {
    const { caller, access } = await identify(authenticator, request);
    if (access.kind === 'credential' && !(await jobRuns(access)))
      throw new ApiError(403, {
        code: 'forbidden',
        detail: "This state credential's job has ended: a job's credential works only while the job runs.",
      });
    const provenance = requestProvenance(request, 'state');
    const session = engine.open(caller, access.kind === 'credential' ? { ...provenance, jobId: access.jobReference } : provenance);
    reply.raw.once('close', () => {
      session.close();
    });
    const { organizationId, workspaceId } = request.params as { organizationId: string; workspaceId: string };
    return session.state(records, { organizationId, workspaceId }, access);
  };
  const outputOf = (request: FastifyRequest) => {
    const { organizationId, workspaceId } = request.params as { organizationId: string; workspaceId: string };
    const origin = settings.publicUrl ?? localOrigin(request);
    return (historyId: string) => `${origin}/tfstate/v1/organization/${organizationId}/workspace/${workspaceId}/state/${historyId}.json`;
  };
  const sendJson = (reply: FastifyReply, status: number, text: string) =>
    reply.code(status).header('content-type', 'application/json; charset=utf-8').header('cache-control', 'no-store').send(text);
  const holderAnswer = (reply: FastifyReply, error: unknown) => {
    if (error instanceof LockHeld) return sendJson(reply, error.status, error.holder.info);
    throw error;
  };
  const withBody = { bodyLimit: settings.maxBytes };

  api.get(`${statePrefix}/state`, async (request, reply) => {
    const current = await (await stateOf(request, reply)).current();
    return current === undefined ? reply.code(204).send() : sendJson(reply, 200, current.text);
  });

  const write = async (request: FastifyRequest, reply: FastifyReply) => {
    const state = await stateOf(request, reply);
    const text = bodyText(request, 'a Terraform state');
    const query = request.query as Record<string, unknown>;
    const lockId = queryText(query, 'ID');
    const force = queryText(query, 'force');
    if (force !== undefined && force !== 'true' && force !== 'false') throw badRequest('invalid_argument', 'force must be true or false.');
    await state.write(text, { lockId, force: force === 'true', outputOf: outputOf(request) });
    return reply.code(200).send();
  };
  // POST by default; PUT for a backend configured with `update_method = "PUT"`.
  for (const method of ['POST', 'PUT']) api.route({ method, url: `${statePrefix}/state`, ...withBody, handler: write });

  const lock = async (request: FastifyRequest, reply: FastifyReply) => {
    const state = await stateOf(request, reply);
    try {
      await state.takeLock(bodyText(request, 'Terraform lock info'));
    } catch (error) {
      return holderAnswer(reply, error);
    }
    return reply.code(200).send();
  };
  const unlock = async (request: FastifyRequest, reply: FastifyReply) => {
    const state = await stateOf(request, reply);
    const body = request.body instanceof Buffer && request.body.length > 0 ? bodyText(request, 'Terraform lock info') : undefined;
    try {
      await state.releaseLock(body);
    } catch (error) {
      return holderAnswer(reply, error);
    }
    return reply.code(200).send();
  };
  for (const method of ['LOCK', 'POST']) api.route({ method, url: `${statePrefix}/lock`, ...withBody, handler: lock });
  for (const method of ['UNLOCK', 'DELETE']) api.route({ method, url: `${statePrefix}/lock`, ...withBody, handler: unlock });

  api.get(`${statePrefix}/state/terraform.tfstate`, async (request, reply) => {
    const current = await (await stateOf(request, reply)).current();
    if (current === undefined) throw new ApiError(404, { code: 'not_found', detail: 'This workspace has no state yet.' });
    return sendJson(reply, 200, current.text);
  });

  api.get(`${statePrefix}/state/:file`, async (request, reply) => {
    const { file } = request.params as { file: string };
    const raw = file.endsWith('.raw.json');
    const historyId = versionFile(file, raw ? '.raw.json' : '.json', records);
    const version = await (await stateOf(request, reply)).version(historyId);
    return sendJson(reply, 200, raw ? version.text : JSON.stringify(shownState(version.text)));
  });

  api.put(`${statePrefix}/rollback/:file`, async (request, reply) => {
    const { file } = request.params as { file: string };
    const historyId = versionFile(file, '.json', records);
    const row = await (await stateOf(request, reply)).rollback(historyId, outputOf(request));
    return sendJson(reply, 201, JSON.stringify({ data: historyDocument(records, row) }));
  });
  return Promise.resolve();
}

/** The history record's id a `{historyId}.json` file names; 404 for any other name. */
function versionFile(file: string, suffix: string, records: StateRecords): string {
  if (!file.endsWith(suffix) || file.length === suffix.length) throw notFound(records.history, file);
  return file.slice(0, -suffix.length);
}

/** A history record as the rollback answers it, in the JSON:API form its reads have. */
function historyDocument(records: StateRecords, row: Row) {
  return {
    type: records.history,
    id: String(row.id),
    attributes: {
      jobReference: row.job_reference ?? null,
      output: row.output,
      serial: Number(row.serial),
      md5: row.md5,
      lineage: row.lineage,
    },
  };
}

/** The request's body as text, checked against its Content-MD5 when one is sent; never quoted back. */
function bodyText(request: FastifyRequest, what: string): string {
  const body = request.body;
  if (!(body instanceof Buffer) || body.length === 0) throw badRequest('missing_body', `The request must carry ${what}.`);
  const sent = request.headers['content-md5'];
  if (sent !== undefined && sent !== createHash('md5').update(body).digest('base64'))
    throw badRequest('content_md5_mismatch', 'The body does not match its Content-MD5 header: it was changed or cut on the way.');
  return body.toString('utf8');
}

/** One query parameter given once, or undefined. */
function queryText(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw badRequest('invalid_argument', `${name} must be given once, with a value.`);
  return value;
}

/**
 * The address this server took the request on, for the links of the state versions it writes when
 * STRATUM_PUBLIC_URL is unset. Never the request's Host: the link is stored, and Terrakube's web UI
 * loads it with the token of whoever views the state, so a writer naming another host would
 * collect viewers' tokens. Behind a proxy or NAT this address is an inner one: set the public URL.
 */
function localOrigin(request: FastifyRequest): string {
  const { localAddress, localPort } = request.raw.socket;
  const address = (localAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  return `${request.protocol}://${address.includes(':') ? `[${address}]` : address}:${String(localPort ?? '')}`;
}

/** The caller of a state request, from Basic auth's password or a bearer token, and the access it has. */
async function identify(authenticator: Authenticator, request: FastifyRequest): Promise<{ caller: Caller; access: StateAccess }> {
  const token = presentedToken(request.headers.authorization, { basic: true });
  if (typeof token !== 'string') throw refused(token.detail);
  try {
    const { caller, scope } = await authenticator.authenticateState(token, { reqId: request.id });
    return { caller, access: scope === undefined ? { kind: 'caller' } : { kind: 'credential', ...scope } };
  } catch (error) {
    if (error instanceof InvalidTokenError) throw refused(`The credentials are not valid: ${error.message}.`);
    if (error instanceof IdentityProviderUnavailableError)
      throw new ApiError(503, {
        code: 'identity_provider_unavailable',
        detail: 'The identity provider could not be reached; retry shortly.',
      });
    throw error;
  }
}

const refused = (detail: string) => new ApiError(401, { code: 'unauthorized', detail }, { challenge });
