import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { makeTempDir } from './temp.js';

/**
 * Real faults on the files of a SQLite database, for the suites in test/faults/sqlite-*: a disk that fills up (a
 * small tmpfs), a -shm file made unwritable (chattr +i; root ignores file modes). Both need root; `faultProblem`
 * says why they cannot run here, for the suite to skip.
 */

/** Runs a command; its failure (message) or undefined. */
function tryRun(command: string, args: string[]): string | undefined {
  try {
    execFileSync(command, args, { stdio: 'pipe' });
    return undefined;
  } catch (err) {
    return `${command} ${args.join(' ')}: ${(err as Error).message.split('\n')[0]}`;
  }
}

export interface SmallDisk {
  dir: string;
  /** Writes a file until the disk is full (ENOSPC). */
  fill(): void;
  /** Removes what `fill` wrote: the disk has room again. */
  free(): void;
  unmount(): void;
}

/** A tmpfs of `megabytes` mounted on a fresh folder; undefined with the reason when mounting is not allowed here. */
export function smallDisk(megabytes: number): SmallDisk | string {
  const dir = makeTempDir('restlayer-fault-disk-');
  const problem = tryRun('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m`, 'tmpfs', dir]);
  if (problem) return problem;
  const filler = join(dir, 'filler');
  return {
    dir,
    fill() {
      const fd = openSync(filler, 'a');
      const block = Buffer.alloc(64 * 1024);
      try {
        for (;;) writeSync(fd, block);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      } finally {
        closeSync(fd);
      }
      // The last partial pages too, so that not even one more SQLite page fits.
      const fd2 = openSync(filler, 'a');
      try {
        for (;;) writeSync(fd2, Buffer.alloc(512));
      } catch {
        // full
      } finally {
        closeSync(fd2);
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    unmount() {
      tryRun('umount', ['-l', dir]);
    },
  };
}

/** Makes `file` immutable (writes fail even for root) or mutable again; the reason when chattr cannot here. */
export function immutable(file: string, on: boolean): string | undefined {
  return tryRun('chattr', [on ? '+i' : '-i', file]);
}

/** Whether chattr +i works on files in `dir` (root, a filesystem that supports it). */
export function immutableProblem(dir: string): string | undefined {
  mkdirSync(dir, { recursive: true });
  const probe = join(dir, 'chattr-probe');
  closeSync(openSync(probe, 'w'));
  const problem = immutable(probe, true);
  immutable(probe, false);
  rmSync(probe, { force: true });
  return problem;
}

/** How long a request of these tests waits for its answer; none by then counts as "no answer" (status 0). */
const ANSWER_WITHIN_MS = 5_000;

/** GET /health/ready's status, or 0 when no answer came (connection refused or broken, or none in time). */
export async function readiness(baseUrl: string): Promise<number> {
  try {
    const reply = await fetch(`${baseUrl}/health/ready`, { signal: AbortSignal.timeout(ANSWER_WITHIN_MS) });
    await reply.arrayBuffer();
    return reply.status;
  } catch {
    return 0;
  }
}

/** One write a test made: the order's marker, and what the server answered. */
export interface Write {
  marker: string;
  status: number;
  id?: number;
  body: unknown;
  retryAfter?: string | null;
}

/**
 * The writes of a test, each an order with a comment of its own: `check` opens the database afterwards and proves
 * every acknowledged one is there (nothing acknowledged was lost) and no refused one is (never a success for a
 * write that failed).
 */
export class WriteLedger {
  readonly writes: Write[] = [];
  private n = 0;

  constructor(private readonly prefix: string) {}

  async post(baseUrl: string, token: string): Promise<Write> {
    const marker = `${this.prefix}-${++this.n}`;
    let write: Write;
    try {
      const reply = await fetch(`${baseUrl}/sales-order`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ customerId: 11000, status: 1, onlineOrderFlag: true, comment: marker }),
        signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
      });
      const text = await reply.text();
      const body = text ? (JSON.parse(text) as { result?: { salesOrderId?: number } }) : undefined;
      write = { marker, status: reply.status, id: body?.result?.salesOrderId, body, retryAfter: reply.headers.get('Retry-After') };
    } catch {
      // The connection broke (the worker died under it), or no answer came in time (with every worker gone, the
      // primary holds new connections until one is back): nothing was acknowledged.
      write = { marker, status: 0, body: undefined };
    }
    this.writes.push(write);
    return write;
  }

  acknowledged(): Write[] {
    return this.writes.filter((w) => w.status === 201);
  }

  refused(): Write[] {
    return this.writes.filter((w) => w.status !== 201);
  }

  statuses(): Record<number, number> {
    const counts: Record<number, number> = {};
    for (const w of this.writes) counts[w.status] = (counts[w.status] ?? 0) + 1;
    return counts;
  }

  /** Every failed answer is an envelope with an error message, not a success. */
  expectRefusalsAreEnvelopes(): void {
    for (const w of this.refused().filter((r) => r.status !== 0)) {
      expect(w.status, `${w.marker}: ${JSON.stringify(w.body)}`).to.be.at.least(400);
      const messages = (w.body as { messages?: { severity?: string }[] } | undefined)?.messages;
      expect(messages, `${w.marker}: an envelope with a message`).to.be.an('array').that.is.not.empty;
    }
  }

  /** Every answered refusal is the storage fault answer: 503 with Retry-After and a Storage_ code, never a 500. */
  expectRefusalsAreStorageFaults(): void {
    for (const w of this.refused().filter((r) => r.status !== 0)) {
      expect(w.status, `${w.marker}: ${JSON.stringify(w.body)}`).to.equal(503);
      expect(w.retryAfter, `${w.marker}: Retry-After`).to.match(/^\d+$/);
      const codes = ((w.body as { messages?: { code?: string }[] } | undefined)?.messages ?? []).map((m) => m.code);
      expect(codes, `${w.marker}: a storage fault code`).to.satisfy((all: string[]) => all.some((c) => /^Storage_(Unavailable|OutcomeUnknown)$/.test(c)));
    }
  }

  /** Checked in the database file, after the server stopped: the acknowledged writes are all there, refused ones not. */
  expectInDatabase(db: string): { lost: number } {
    const sqlite = new Database(db, { readonly: true });
    try {
      const rows = sqlite.prepare(`select sales_order_id as id, comment from sales_order where comment like ?`).all(`${this.prefix}-%`) as { id: number; comment: string }[];
      const stored = new Map(rows.map((r) => [r.comment, r.id]));
      const lost = this.acknowledged().filter((w) => stored.get(w.marker) !== w.id);
      expect(lost.map((w) => w.marker), 'acknowledged writes missing from the database').to.deep.equal([]);
      // A write that got no answer at all (status 0) may or may not have committed: only answered refusals are checked.
      const refusedButStored = this.refused().filter((w) => w.status !== 0 && stored.has(w.marker));
      expect(refusedButStored.map((w) => `${w.marker} (${w.status})`), 'writes answered with an error but stored').to.deep.equal([]);
      return { lost: lost.length };
    } finally {
      sqlite.close();
    }
  }
}
