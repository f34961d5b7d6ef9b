/**
 * Terraform 1.x's remote state manager, which decides what reaches the backend: it keeps a working
 * snapshot and the one last read or written. Persisting uploads only when the working snapshot,
 * the lineage or the serial moved on from that one, with the serial bumped; with nothing read, it
 * first looks once more for a snapshot it ought to update (a GET), and starts a new lineage at
 * serial 1 when there is none. Until a snapshot has been written to it, what it uploaded does not
 * count as read, so a second persist looks again and uploads the same snapshot again.
 */
import { HttpState } from './http-state.ts';
import { snapshotOf, stateDocument, terraformUuid, type Snapshot, type StateV4 } from './state.ts';
import { Diagnostic } from './diagnostics.ts';

interface Read {
  snapshot: Snapshot;
  lineage: string;
  serial: number;
}

export class StateManager {
  private working: Snapshot | undefined;
  private lineage = '';
  private serial = 0;
  private read: Read | undefined;
  /** Terraform's manager holds a mutex: a persist from an interrupt waits for one under way. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly backend: HttpState) {}

  /** Reads the stored snapshot, which becomes the working one; undefined when there is none. */
  refresh(): Promise<StateV4 | undefined> {
    return this.serialized(() => this.refreshNow());
  }

  /** Replaces the working snapshot; nothing reaches the backend until a persist. */
  write(snapshot: Snapshot): Promise<void> {
    return this.serialized(() => {
      this.working = structuredClone(snapshot);
      return Promise.resolve();
    });
  }

  /** Uploads the working snapshot when it differs from the last one read or written; fails with the client's words. */
  persist(): Promise<void> {
    return this.serialized(async () => {
      if (this.read !== undefined) {
        const unchanged =
          this.read.lineage !== '' &&
          this.lineage === this.read.lineage &&
          this.read.serial !== 0 &&
          this.serial === this.read.serial &&
          sameContent(this.working, this.read.snapshot);
        if (unchanged) return;
        this.serial++;
      } else {
        await this.refreshNow().catch((error: unknown) => {
          throw new Error(`failed checking for existing remote state: ${reason(error)}`);
        });
        if (this.lineage === '') {
          this.lineage = terraformUuid();
          this.serial++;
        }
      }
      try {
        await this.backend.put(stateDocument(this.working, this.lineage, this.serial));
      } catch (error) {
        throw new Error(reason(error));
      }
      this.read =
        this.working === undefined ? undefined : { snapshot: structuredClone(this.working), lineage: this.lineage, serial: this.serial };
    });
  }

  /** The working snapshot with the lineage and serial the manager holds, as Terraform exports it for errored.tfstate. */
  exported(snapshot: Snapshot): StateV4 {
    return stateDocument(snapshot, this.lineage, this.serial);
  }

  private async refreshNow(): Promise<StateV4 | undefined> {
    const stored = await this.backend.get();
    if (stored === undefined) {
      this.read = undefined;
      this.lineage = '';
      this.serial = 0;
      return undefined;
    }
    this.working = snapshotOf(stored);
    this.lineage = stored.lineage;
    this.serial = stored.serial;
    this.read = { snapshot: snapshotOf(stored), lineage: stored.lineage, serial: stored.serial };
    return stored;
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

/** Terraform compares the snapshots as it would write them, serial and lineage aside. */
function sameContent(a: Snapshot | undefined, b: Snapshot): boolean {
  const text = (snapshot: Snapshot | undefined) => {
    const { outputs, resources } = stateDocument(snapshot, '', 0);
    return JSON.stringify({ outputs, resources });
  };
  return text(a) === text(b);
}

function reason(error: unknown): string {
  if (error instanceof Diagnostic) return error.detail;
  return error instanceof Error ? error.message : String(error);
}
