/** What `stratum` exits with, so scripts and deploy pipelines can tell outcomes apart. */
export const ExitCode = {
  ok: 0,
  /** The command could not do its work, or `check` found something to fix; the message says what. */
  failed: 1,
  /** Wrong usage: an unknown command or option, a missing argument. */
  usage: 2,
  /** `migrate --check`: migrations are pending. */
  pending: 3,
} as const;

/** A failure with its own exit code and a message for the operator. */
export class CommandFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: number = ExitCode.failed,
  ) {
    super(message);
  }
}
