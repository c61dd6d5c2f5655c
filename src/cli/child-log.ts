/**
 * A validator's log file as the launcher writes it (issue 26 deliver 1: one node's fault
 * stays in that node). A write that fails (a full disk, a folder removed, a file made
 * read-only) used to reach the launcher as an unhandled 'error' event of the file stream,
 * which stopped the launcher and, with it, every validator it supervised. Now the first
 * failure is said once on the launcher's stderr (which file, why, what happens next), the
 * validator's output is dropped meanwhile (the launcher keeps reading its pipes, so the
 * validator never blocks on a full pipe), and the file is opened again at most every
 * `reopenMs` when output arrives; once a write succeeds again that is said too, with how
 * many bytes were lost.
 */
import { createWriteStream, type WriteStream } from 'node:fs';

/** How long a failed log waits before the launcher tries to open it again. */
const LOG_REOPEN_MS = 10_000;

export class ChildLog {
  private stream: WriteStream | undefined;
  /** When the last failure happened (Date.now), while the log is not writing. */
  private failedAtMs: number | undefined;
  /** Bytes of output dropped since the log failed. */
  private droppedBytes = 0;
  /** A reopened stream is on trial: its first successful write announces the recovery. */
  private trial = false;

  constructor(
    readonly path: string,
    private readonly name: string,
    private readonly say: (line: string) => void,
    private readonly reopenMs = LOG_REOPEN_MS,
    private readonly now: () => number = Date.now,
  ) {
    this.open();
  }

  /** Whether output is being written (false while the file cannot be). */
  get writing(): boolean {
    return this.stream !== undefined && this.failedAtMs === undefined;
  }

  write(chunk: Buffer | string): void {
    if (!this.stream && this.failedAtMs !== undefined && this.now() - this.failedAtMs >= this.reopenMs) {
      this.trial = true;
      this.open();
    }
    const s = this.stream;
    if (!s) {
      this.droppedBytes += chunk.length;
      return;
    }
    s.write(chunk, (err) => {
      if (err || !this.trial || this.stream !== s) return;
      this.trial = false;
      this.failedAtMs = undefined;
      this.say(`${this.name}'s log ${this.path} is written again; ${this.droppedBytes} bytes of its output were lost meanwhile`);
      this.droppedBytes = 0;
    });
  }

  end(): void {
    this.stream?.end();
    this.stream = undefined;
  }

  private open(): void {
    const s = createWriteStream(this.path, { flags: 'a' });
    s.on('error', (err: NodeJS.ErrnoException) => this.fail(s, err));
    this.stream = s;
  }

  private fail(s: WriteStream, err: NodeJS.ErrnoException): void {
    if (this.stream !== s) return;
    this.stream = undefined;
    s.destroy();
    const reopening = this.trial;
    this.trial = false;
    this.failedAtMs = this.now();
    // A reopened file that fails again was already reported: said once, not every retry.
    if (!reopening) {
      this.say(
        `${this.name}'s log ${this.path} cannot be written (${err.code ?? err.message}); its output is dropped until it can, ` +
          `tried again every ${this.reopenMs / 1000} s; the validator and the network keep running`,
      );
    }
  }
}
