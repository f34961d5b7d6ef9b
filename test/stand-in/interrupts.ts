/**
 * Interrupts as Terraform 1.x takes them, SIGINT and SIGTERM alike, to its process or its process
 * group: the first asks the running operation to stop gracefully (what it does then is the
 * operation's business), a second cancels it.
 */
export class Interrupts {
  private readonly first = new AbortController();
  private readonly second = new AbortController();
  private count = 0;

  constructor(private readonly print: (line: string) => void) {
    const received = () => this.received();
    process.on('SIGINT', received);
    process.on('SIGTERM', received);
  }

  /** Aborted on the first interrupt. */
  get halt(): AbortSignal {
    return this.first.signal;
  }

  /** Aborted on the second interrupt. */
  get cancel(): AbortSignal {
    return this.second.signal;
  }

  private received(): void {
    this.count++;
    if (this.count === 1) {
      this.print('\nInterrupt received.\nPlease wait for Terraform to exit or data loss may occur.\nGracefully shutting down...\n');
      this.first.abort();
    } else if (this.count === 2) {
      process.stderr.write('\nTwo interrupts received. Exiting immediately. Note that data\nloss may have occurred.\n');
      this.second.abort();
    }
  }
}
