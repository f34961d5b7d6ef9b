import { setTimeout as sleep } from 'node:timers/promises';
import { portOf, type RunnerPort } from './runner-port.js';

/** A call of the runner API the service refused or could not answer: its status and the service's own words. */
export class RunnerCallFailed extends Error {
  constructor(
    readonly call: string,
    readonly status: number,
    detail: string,
  ) {
    super(`the service answered ${call} with ${status}: ${detail}`);
  }
}

/** How long one call may take: a saved plan or a left state is the largest thing sent. */
const callTimeoutMs = 120_000;
/** Waits before the retries of a call that never reached the service, or that it answered 503 (nothing done): a restart's length. */
const retryWaitsMs = [1_000, 2_000, 4_000, 8_000];

/**
 * The runner port over HTTP, as `stratum agent` speaks it to the service at `baseUrl` with its agent
 * token: one POST per call to /runner/v1/<call> with `{"args": [...]}`, answered `{"result": ...}`.
 * A call the service's address refused (it restarts) or that it answered 503 (its transaction
 * failed: nothing was done) is tried again after a pause, so that a server's restart does not fail
 * the runs in progress. Anything else is the executor's to handle, as a failure of the store is in
 * process: a call cut off midway may have been done, and a claim done twice would hold a job nobody runs.
 */
export function httpRunnerPort(baseUrl: string, token: string): RunnerPort {
  const call = async (name: keyof RunnerPort, args: unknown[]): Promise<unknown> => {
    for (let attempt = 0; ; attempt++) {
      const outcome = await send(baseUrl, token, name, args);
      const retry = outcome instanceof RunnerCallFailed ? outcome.status === 503 : outcome instanceof Error && refused(outcome);
      if (!retry || attempt >= retryWaitsMs.length) {
        if (outcome instanceof Error) throw outcome;
        // A claim that found no job is undefined, as in process; every other call's null is its own.
        return name === 'claim' && outcome === null ? undefined : outcome;
      }
      await sleep(retryWaitsMs[attempt]);
    }
  };
  return portOf(call);
}

/** Whether a request failed before the service took it: nothing listened at its address. */
const refused = (error: Error) => (error.cause as { code?: unknown } | undefined)?.code === 'ECONNREFUSED';

/** One call: its result, or the error it ended with (a RunnerCallFailed when the service answered). */
async function send(baseUrl: string, token: string, name: string, args: unknown[]): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/runner/v1/${name}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ args }),
      signal: AbortSignal.timeout(callTimeoutMs),
    });
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
  const text = await response.text().catch(() => '');
  if (!response.ok) return new RunnerCallFailed(name, response.status, detailOf(text));
  try {
    return (JSON.parse(text) as { result: unknown }).result;
  } catch {
    return new RunnerCallFailed(name, response.status, 'the answer is not JSON');
  }
}

/** The detail of a JSON:API error document, else the start of the text. */
function detailOf(text: string): string {
  try {
    const document = JSON.parse(text) as { errors?: { detail?: unknown }[] };
    const detail = document.errors?.[0]?.detail;
    if (typeof detail === 'string') return detail;
  } catch {
    // Not JSON: a proxy's page.
  }
  return text.slice(0, 200);
}
