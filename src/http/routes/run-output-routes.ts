import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Engine, RecordAddress, Session } from '../../engine/index.js';
import { ApiError } from '../../errors.js';
import type { ResourceDeclaration, Row } from '../../model/index.js';
import { liveStep, RunLogs, withTrimNote, type StepLog } from '../../runs/index.js';
import type { Authenticator } from '../../auth/authenticator.js';
import { presentedToken } from '../../auth/credentials.js';
import { checkedNowAndThen, type CallerConnections } from '../caller-connections.js';
import { requireCaller } from '../plugins/authentication.js';
import { sessionOf } from './request-session.js';

/** The records whose paths the run pages name. */
export interface RunOutputRecords {
  organization: ResourceDeclaration;
  job: ResourceDeclaration;
  step: ResourceDeclaration;
}

export interface RunOutputOptions {
  engine: Engine;
  records: RunOutputRecords;
  /** Each caller's share of long-lived connections, shared with the live channel. */
  connections: CallerConnections;
  /** Checks a stream's token again while it runs: a revoked or expired one ends it. */
  authenticator: Authenticator;
  /** How often a stream looks for more of a running step's log. */
  pollMs?: number;
}

const stepPath = '/tfoutput/v1/organization/:organizationId/job/:jobId/step/:stepId';
/** Streams one process keeps open at once: each polls the store while its step runs. */
const maxStreams = 500;
const keepAliveMs = 15_000;

interface StepParams {
  organizationId: string;
  jobId: string;
  stepId: string;
}

/**
 * A run's pages as Terrakube's web UI reads them: each step's log as text
 * (`/tfoutput/v1/organization/{org}/job/{job}/step/{step}`), the same as server-sent events while
 * the step runs (`.../stream`, one event per line, resumable with Last-Event-ID), and a job's
 * context (`/context/v1/{job}`: the structured view of each plan step, `planStructuredOutput` by
 * step id), for whoever may read the job.
 */
export function runOutputRoutes(
  api: FastifyInstance,
  { engine, records, connections, authenticator, pollMs = 500 }: RunOutputOptions,
): Promise<void> {
  let streams = 0;
  const logs = new RunLogs(engine.work('service'), records.step);
  // The caller's session finds the step (404 for one it may not see); its log is the run's, read beside it.
  const stepLog = async (session: Session, address: RecordAddress) => {
    const step = await session.find(address);
    return { step, log: await logs.stepLog(String(step.id)) };
  };
  const stepAt = ({ organizationId, jobId, stepId }: StepParams): RecordAddress => ({
    resource: records.step,
    ancestors: [
      { resource: records.organization, id: organizationId },
      { resource: records.job, id: jobId },
    ],
    id: stepId,
  });

  api.get(stepPath, async (request, reply) => {
    const { log } = await stepLog(sessionOf(engine, request, reply), stepAt(request.params as StepParams));
    return reply
      .header('content-type', 'text/plain; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(log === undefined ? '' : withTrimNote(log));
  });

  api.get(`${stepPath}/stream`, async (request, reply) => {
    const session = sessionOf(engine, request, reply);
    const address = stepAt(request.params as StepParams);
    await session.find(address);
    if (streams >= maxStreams)
      throw new ApiError(
        503,
        {
          code: 'too_many_streams',
          detail: `This server streams ${maxStreams} logs at once; read the log itself, or retry shortly.`,
        },
        { retryAfterSeconds: 5 },
      );
    const release = connections.take(requireCaller(request));
    if (release === undefined)
      throw new ApiError(429, { code: 'too_many_streams', detail: connections.refusal() }, { retryAfterSeconds: 5 });
    streams++;
    reply.hijack();
    // Hijacked, the reply sends nothing itself: the headers set so far (cross-origin ones) go out here.
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
    reply.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    try {
      // Once the stream has begun there is no error to answer with: a failed read (the store gone, the client gone) ends it.
      // The token is checked again now and then, as the live channel's is: a revoked or expired one
      // ends the stream (its reconnection is then refused), where its session alone would go on.
      const token = presentedToken(request.headers.authorization, { basic: false });
      const tokenValid = checkedNowAndThen(async () =>
        typeof token === 'string'
          ? Promise.resolve(authenticator.authenticate(token)).then(
              () => true,
              () => false,
            )
          : false,
      );
      const read = async () => {
        if (!(await tokenValid())) throw new Error("The stream's token is no longer valid.");
        return stepLog(session, address);
      };
      await streamLog(request, reply, { pollMs, read }).catch(() => undefined);
    } finally {
      streams--;
      release();
      reply.raw.end();
    }
  });

  api.get('/context/v1/:jobId', async (request, reply) => {
    const job = { resource: records.job, ancestors: [], id: (request.params as { jobId: string }).jobId };
    const found = await sessionOf(engine, request, reply).find(job);
    const context = { planStructuredOutput: await logs.planViews(String(found.id)) };
    return reply.header('content-type', 'application/json; charset=utf-8').header('cache-control', 'no-store').send(context);
  });

  // A plan's structured view is kept once the plan ends, not as it goes: the stream ends at once,
  // which the UI takes as nothing to add to the context it polls.
  api.get('/context/v1/:jobId/stream', async (request, reply) => {
    await sessionOf(engine, request, reply).find({ resource: records.job, ancestors: [], id: (request.params as { jobId: string }).jobId });
    return reply.header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-store').send('');
  });
  return Promise.resolve();
}

/**
 * Sends a step's log line by line as it grows, each event's id the offset after its line, until
 * the step has ended and every line is sent, or the client leaves. A client resuming from an offset
 * that was trimmed meanwhile is told so. The last event, `end`, gives the step's status: a client
 * stops there rather than reconnect (an EventSource reconnects to a stream that just closes). It has
 * no id, so a client that reconnects all the same resumes after the last line and gets it again.
 */
async function streamLog(
  request: FastifyRequest,
  reply: FastifyReply,
  { pollMs, read }: { pollMs: number; read: () => Promise<{ step: Row; log: StepLog | undefined }> },
): Promise<void> {
  const raw = reply.raw;
  const client = { gone: false };
  raw.once('close', () => {
    client.gone = true;
  });
  const resumed = Number(request.headers['last-event-id']);
  let offset = Number.isSafeInteger(resumed) && resumed > 0 ? resumed : 0;
  let quietSince = Date.now();
  const send = (text: string) => {
    quietSince = Date.now();
    return raw.write(text);
  };
  while (!client.gone) {
    const { step, log } = await read();
    // The step's status ends the stream, not its log's finished mark, which the executor sets first.
    const ended = !(liveStep as readonly string[]).includes(String(step.status));
    if (log !== undefined) {
      if (offset < log.trimmed) {
        send(`id: ${log.trimmed}\ndata: [${log.trimmed - offset} earlier characters of this output were trimmed]\n\n`);
        offset = log.trimmed;
      }
      const fresh = log.text.slice(offset - log.trimmed);
      const end = log.finished ? fresh.length : fresh.lastIndexOf('\n') + 1;
      const lines = fresh.slice(0, end);
      if (lines !== '') {
        let at = offset;
        const events = lines
          .replace(/\n$/, '')
          .split('\n')
          .map((line) => {
            at += line.length + 1;
            return `id: ${Math.min(at, offset + lines.length)}\ndata: ${line}\n\n`;
          });
        offset += lines.length;
        if (!send(events.join('')))
          await new Promise((resolve) => {
            raw.once('drain', resolve);
            raw.once('close', resolve);
          });
      }
    }
    // A step that never ran (cancelled before it started, an approval) has only its end to send; one
    // that ran has a log coming, even when cancelled before its executor first stored it.
    const sent =
      log === undefined ? typeof step.output !== 'string' || step.output === '' : log.finished && offset >= log.trimmed + log.text.length;
    if (ended && sent) {
      send(`event: end\ndata: ${JSON.stringify({ status: String(step.status) })}\n\n`);
      return;
    }
    if (Date.now() - quietSince >= keepAliveMs) send(': keep-alive\n\n');
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
