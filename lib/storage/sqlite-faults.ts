import type { Logger } from '../log.js';

/**
 * SQLite's answers that say the file or its disk failed, not the query: an I/O error, a full disk, a file that cannot
 * be opened or written, a damaged one. (Busy and locked are contention, not faults, and are waited for elsewhere.)
 */
const FAULT = /^SQLITE_(IOERR|FULL|CANTOPEN|READONLY|CORRUPT|NOTADB|PROTOCOL)(_|$)/;

export function storageFaultCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && FAULT.test(code) ? code : undefined;
}

/** Where storage faults are told: the server's logger (error while failing, warn when writes succeed again). */
export type FaultLog = Pick<Logger, 'error' | 'warn'>;

const CHECK = 'check the disk (df, dmesg) and the database file and the -wal and -shm files next to it (owner, mode, lsattr)';

/**
 * Tells the log that the database's storage fails, once when it starts, then at most every `repeatMs` while it goes on
 * (every failing request would flood the log), and once when a write succeeds again: an operator reading the log
 * after an outage sees when it began, what SQLite said, how many statements failed, and when it ended.
 */
export class StorageFaultWatch {
  private since: number | undefined;
  private failures = 0;
  private lastReport = 0;

  constructor(private readonly path: string, private readonly log: FaultLog | undefined, private readonly repeatMs = 10_000) {}

  /** A statement failed: reported if `err` is a storage fault. */
  failed(err: unknown): void {
    const code = storageFaultCode(err);
    if (!code) return;
    const now = Date.now();
    this.failures++;
    if (this.since === undefined) {
      this.since = now;
      this.lastReport = now;
      this.log?.error('SQLite storage fault: statements fail until it is fixed', { code, error: (err as Error).message, path: this.path, check: CHECK });
    } else if (now - this.lastReport >= this.repeatMs) {
      this.lastReport = now;
      this.log?.error('SQLite storage still failing', { code, error: (err as Error).message, failures: this.failures, failingForMs: now - this.since, path: this.path, check: CHECK });
    }
  }

  /** Whether a storage fault was seen and no write has been committed since. */
  get failing(): boolean {
    return this.since !== undefined;
  }

  /** A write was committed: the storage works (again). */
  wrote(): void {
    if (this.since === undefined) return;
    this.log?.warn('SQLite storage writable again', { failures: this.failures, failedForMs: Date.now() - this.since, path: this.path });
    this.since = undefined;
    this.failures = 0;
  }
}
