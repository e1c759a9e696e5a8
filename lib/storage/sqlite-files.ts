import { statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/** How long a check that found the files the same stands for the check before a write (problemBeforeWrite). */
const RECENT_MS = 20;

/** The three files of a database in WAL mode, as they are named next to it. */
const SUFFIXES = ['', '-wal', '-shm'] as const;

type Identity = { dev: number; ino: number } | undefined;

const identity = (file: string): Identity => {
  const s = statSync(file, { throwIfNoEntry: false });
  return s ? { dev: s.dev, ino: s.ino } : undefined;
};

const describe = (suffix: string) => (suffix ? `the ${suffix} file` : 'the database file');

/**
 * Whether the files this process has open are still the ones at the database's path. A connection keeps the -wal and
 * -shm it opened: when someone removes them (or replaces them, or the database file) under the server, its writes go
 * on succeeding into files no one else will ever see, while every connection opened since (another worker, a reader,
 * the CLI) makes new ones and sees another database. Acknowledged writes were lost that way, silently: after a clean
 * stop, the last connection to close deletes the -wal at the path, whichever it is.
 *
 * A check is three stat calls: 4.5 µs alone, about 18 µs amid a server's load (bench/ab.js, a PUT checks before and
 * after its transaction). Once a difference is found it stands for the life of the process: its connections cannot
 * be moved to the new files (SQLite shares one -shm per database file within a process), only a restart can.
 */
export class SqliteFileWatch {
  private opened: Identity[] | undefined;
  private found: string | undefined;
  /** When (performance.now()) a check last found the files the same. */
  private sameAt = -Infinity;

  /**
   * `onReplaced` is told once, when a difference is first found, with what differs; `recentMs`: how long a check that
   * found the files the same stands for the one before a write.
   */
  constructor(private readonly path: string, private readonly onReplaced: (what: string) => void, private readonly recentMs = RECENT_MS) {}

  /** Notes the files as they are now: once the connection has them open (WAL on, a first write made). */
  capture(): void {
    this.opened = SUFFIXES.map((s) => identity(this.path + s));
  }

  /** What differs between the files open and those at the path, or undefined while they are the same. */
  problem(): string | undefined {
    if (this.found || !this.opened) return this.found;
    const now = SUFFIXES.map((s) => identity(this.path + s));
    const changed = SUFFIXES.flatMap((suffix, i) => {
      const was = this.opened![i];
      const is = now[i];
      if (!was || (is && is.dev === was.dev && is.ino === was.ino)) return [];
      return [`${describe(suffix)} ${is ? 'was replaced' : 'was removed'}`];
    });
    if (!changed.length) {
      this.sameAt = performance.now();
      return undefined;
    }
    this.found = `${changed.join(' and ')} while the server had ${changed.length > 1 ? 'them' : 'it'} open (${this.path})`;
    this.onReplaced(this.found);
    return this.found;
  }

  /**
   * problem() before a write, which may answer from a check that found the files the same within the last
   * `recentMs`. What a write's acknowledgement rests on is the check after it (problem()), never this one: a removal
   * this misses makes the answer of a write that commits 503 Storage_OutcomeUnknown instead of Storage_Unavailable
   * (one that rolls back answers as it would have), and still loses nothing acknowledged. Under load the writer's
   * checks come back to back, and half of them go.
   */
  problemBeforeWrite(): string | undefined {
    return !this.found && performance.now() - this.sameAt < this.recentMs ? undefined : this.problem();
  }

  /** Whether the database file itself is still the one open (then the WAL open may still be saved into it). */
  databaseFileKept(): boolean {
    const was = this.opened?.[0];
    const is = identity(this.path);
    return !!was && !!is && was.dev === is.dev && was.ino === is.ino;
  }
}

/**
 * The identities of the database's three files at its path, as one string: a process that does not keep them open
 * (the primary of `serve --workers`) compares two of these to tell whether someone removed or replaced them.
 */
export function sqliteFilesAt(path: string): string {
  return SUFFIXES.map((s) => {
    const id = identity(path + s);
    return id ? `${id.dev}:${id.ino}` : '-';
  }).join(' ');
}

/** Whether the -wal at `path` holds frames (a connection wrote there): past its 32-byte header. */
export function walAtPathHasFrames(path: string): boolean {
  return (statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0) > 32;
}

/**
 * Long enough for the workers that still have the old files open to find the change (each looks within a second,
 * and at every write) and to save the WAL they have open into the database file (a checkpoint waits up to 2 s for
 * readers), with room for a loaded machine.
 */
const SAVE_GRACE_MS = 5_000;

/**
 * For the primary of `serve --workers` on SQLite: a worker that dies after the -wal and -shm were removed under the
 * server is replaced only once the survivors had time to save what they committed into the old WAL. A replacement
 * opens new files at the path and writes there at once; the survivors' WAL, acknowledged writes in it, could then no
 * longer go into the database file (its pages and the new WAL's would overwrite each other), and would be lost.
 * Nothing else orders the two: with Server:WorkerRestartMilliseconds at 50 (the fault tests' setting) a replacement
 * may open the files before a survivor on a loaded machine has looked.
 */
export function sqliteReplacementHold(path: string): { serving(): void; hold(): string | undefined; ms: number } {
  let opened: string | undefined;
  return {
    ms: SAVE_GRACE_MS,
    serving: () => {
      opened = sqliteFilesAt(path);
    },
    hold: () => (opened !== undefined && sqliteFilesAt(path) !== opened
      ? `the SQLite files at ${path} are not the ones the workers opened: the survivors save what they wrote first`
      : undefined),
  };
}
