import { type ChildProcess, fork } from 'node:child_process';
import { deserialize } from 'node:v8';
import type { CompiledQuery } from 'kysely';
import { layerPath } from '../package-paths.js';
import { rowObject } from './sqlite-statements.js';

/** A query sent to a reader process. */
export interface ReaderRequest {
  sql: string;
  parameters: readonly unknown[];
}

/**
 * A reader's answer: the rows (each row's values in the order of `columns`), or the error SQLite raised (its code
 * kept, so the error parser can classify it).
 */
export type ReaderReply = { columns: string[]; values: unknown[][] } | { error: { message: string; code?: string } };

/** What a reader sends once it can take queries (its process and thread started, its connection open). */
export interface ReaderReady {
  ready: true;
}

/** The rows of a reader's answer as objects, as better-sqlite3's `all()` makes them. */
const rowsOf = ({ columns, values }: { columns: string[]; values: unknown[][] }) => values.map((row) => rowObject(columns, row));

interface Job {
  request: ReaderRequest;
  resolve(rows: unknown[]): void;
  reject(err: Error): void;
  timer?: NodeJS.Timeout;
  /** When its time limit runs out (performance.now()), while the limit runs: its wait for a reader counts against it. */
  deadline: number;
  /** What was left of its time limit when it went to a reader that was still starting: the limit waits meanwhile. */
  left?: number;
  reader?: Reader;
  /** The jobs of the caller's signal, which this job leaves when it settles. */
  pending?: Set<Job>;
}

interface Reader {
  child: ChildProcess;
  /** Set once the reader said it can take queries: until then its job's time limit waits. */
  ready: boolean;
  job?: Job;
}

export interface ReaderPoolOptions {
  /** How many reader processes run at most (each runs one query at a time). */
  size: number;
  /**
   * A query not answered within this (its wait for a free reader included) is stopped and fails with SQLITE_INTERRUPT.
   * A reader's start is not counted: it has a limit of its own, `startTimeoutMs`.
   */
  timeoutMs: number;
  /** A reader process not ready to take queries within this is ended, failing its query (default 30 s). */
  startTimeoutMs?: number;
  /** How long a reader waits for another process's lock (WAL recovery) before it fails. */
  lockWaitMs: number;
}

const entry = layerPath('storage', 'sqlite-reader-process.js');

/**
 * A start this slow means something is wrong (a machine out of memory, a disk that does not answer), not merely busy; a
 * request's own RestAPI:RequestTimeoutSeconds (30 by default) will have answered it by then.
 */
const START_TIMEOUT_MS = 30_000;

const failure = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});

/** A query stopped because its request's client hung up: no one reads this answer (a 503, as for a stopped query). */
const abandoned = () => failure('The query was stopped: the client closed the connection.', 'SQLITE_INTERRUPT');

/**
 * Read-only connections to one SQLite file (WAL lets them read beside the writer, seeing committed data), each in a
 * process of its own, so a slow query holds up neither the event loop nor other requests, and can be stopped: past
 * its time limit, the process running it is killed, and a fresh one starts when the next query needs it.
 * Processes start on first use, so a server that never reads through the pool never starts one.
 */
export class SqliteReaderPool {
  private readonly readers = new Set<Reader>();
  private readonly waiting: Job[] = [];
  /** Each caller's signal (a request's) with its jobs not settled yet. */
  private readonly bySignal = new WeakMap<AbortSignal, Set<Job>>();
  private closed = false;

  constructor(private readonly path: string, private readonly options: ReaderPoolOptions) {}

  /**
   * Runs `query` in a reader. Once `signal` aborts (the request's client hung up), the query is dropped if it waits,
   * or its process is ended if it runs: nobody will read its rows, and the reader is free for the next query at once
   * instead of at the time limit.
   */
  run(query: CompiledQuery, signal?: AbortSignal): Promise<unknown[]> {
    if (this.closed) return Promise.reject(failure('The store is closed.'));
    if (signal?.aborted) return Promise.reject(abandoned());
    return new Promise((resolve, reject) => {
      const job: Job = { request: { sql: query.sql, parameters: query.parameters }, resolve, reject, deadline: performance.now() + this.options.timeoutMs };
      job.timer = this.limit(job, this.options.timeoutMs);
      if (signal) {
        job.pending = this.jobsOf(signal);
        job.pending.add(job);
      }
      this.waiting.push(job);
      this.dispatch();
    });
  }

  /** Ends every reader; queries still waiting or running fail. */
  close(): void {
    this.closed = true;
    for (const job of this.waiting.splice(0)) this.settle(job, failure('The store is closed.'));
    for (const reader of this.readers) {
      if (reader.job) this.settle(reader.job, failure('The store is closed.'));
      reader.job = undefined;
      this.retire(reader);
    }
  }

  /**
   * The jobs of `signal`, with one listener per signal that stops them all when it aborts. Not a listener added and
   * removed per job: measured with a sampling heap profile of a CSV export, that kept every page a reader answered
   * from dying young, so each was moved to V8's old generation as garbage (about 31 MB per 100,000 rows; 1.7 MB
   * with this), where it stayed until a full collection.
   */
  private jobsOf(signal: AbortSignal): Set<Job> {
    let jobs = this.bySignal.get(signal);
    if (!jobs) {
      const pending = new Set<Job>();
      jobs = pending;
      this.bySignal.set(signal, pending);
      signal.addEventListener('abort', () => {
        for (const job of [...pending]) this.stop(job, abandoned());
      }, { once: true });
    }
    return jobs;
  }

  private dispatch(): void {
    while (this.waiting.length) {
      let reader = [...this.readers].find((r) => !r.job);
      if (!reader) {
        if (this.readers.size >= this.options.size) return;
        reader = this.start();
      }
      const job = this.waiting.shift()!;
      reader.job = job;
      job.reader = reader;
      if (!reader.ready) this.awaitStart(job);
      const chosen = reader;
      chosen.child.send(job.request, (err) => {
        // The process ended while idle (killed, out of memory) before its exit was seen: the query never reached it,
        // so it goes to another reader instead of failing.
        if (!err || chosen.job !== job) return;
        chosen.job = undefined;
        job.reader = undefined;
        // Waiting again counts against its limit.
        this.resumeLimit(job);
        this.readers.delete(chosen);
        this.waiting.unshift(job);
        this.dispatch();
      });
    }
  }

  private start(): Reader {
    const child = fork(entry, [this.path, String(this.options.lockWaitMs)], {
      serialization: 'advanced', execArgv: ['--expose-gc'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const reader: Reader = { child, ready: false };
    // Idle readers must not keep the server's process alive after it closes.
    child.unref();
    child.channel?.unref();
    child.on('message', (bytes: Uint8Array) => {
      // Serialized in the reader's thread (v8.serialize), passed through its process untouched.
      const reply = deserialize(bytes) as ReaderReply | ReaderReady;
      if ('ready' in reply) {
        reader.ready = true;
        if (reader.job) this.resumeLimit(reader.job);
        return;
      }
      const job = reader.job;
      reader.job = undefined;
      if (job) this.settle(job, 'values' in reply ? rowsOf(reply) : failure(reply.error.message, reply.error.code));
      this.dispatch();
    });
    child.on('exit', () => {
      this.readers.delete(reader);
      if (reader.job) this.settle(reader.job, failure('The read connection ended unexpectedly.'));
      reader.job = undefined;
      if (!this.closed) this.dispatch();
    });
    // The process could not be started (or signalled): its query fails now rather than at its time limit.
    child.on('error', (err) => {
      this.readers.delete(reader);
      if (reader.job) this.settle(reader.job, err);
      reader.job = undefined;
      if (!this.closed) this.dispatch();
    });
    this.readers.add(reader);
    return reader;
  }

  /** Stops `job` with a 503 (SQLITE_INTERRUPT) once `ms` have passed. */
  private limit(job: Job, ms: number, why = `The query was stopped after ${this.options.timeoutMs / 1000} seconds (Storage:QueryTimeoutSeconds).`): NodeJS.Timeout {
    return setTimeout(() => this.stop(job, failure(why, 'SQLITE_INTERRUPT')), ms);
  }

  /**
   * `job` went to a reader that is still starting. Starting a process, its thread and better-sqlite3 takes 0.3-0.5 s
   * of an idle 2-core machine and seconds of a busy one (2 s with eight busy loops beside it), which is not the query's
   * time: its limit waits, with what was left of it, and the start has a limit of its own.
   */
  private awaitStart(job: Job): void {
    clearTimeout(job.timer);
    job.left = Math.max(0, job.deadline - performance.now());
    const startMs = this.options.startTimeoutMs ?? START_TIMEOUT_MS;
    job.timer = this.limit(job, startMs, `The read connection did not start within ${startMs / 1000} seconds.`);
  }

  private resumeLimit(job: Job): void {
    if (job.left === undefined) return;
    clearTimeout(job.timer);
    job.deadline = performance.now() + job.left;
    job.timer = this.limit(job, job.left);
    job.left = undefined;
  }

  /** Ends `job` with `why`: a running query by ending its process (better-sqlite3 cannot interrupt one), a waiting one by dropping it. */
  private stop(job: Job, why: Error): void {
    if (job.reader) {
      // The only way to stop a running better-sqlite3 query: end the process that runs it.
      job.reader.job = undefined;
      this.retire(job.reader);
    } else {
      this.waiting.splice(this.waiting.indexOf(job), 1);
    }
    this.settle(job, why);
    this.dispatch();
  }

  private retire(reader: Reader): void {
    this.readers.delete(reader);
    reader.child.kill('SIGKILL');
  }

  private settle(job: Job, outcome: unknown[] | Error): void {
    clearTimeout(job.timer);
    job.pending?.delete(job);
    if (outcome instanceof Error) job.reject(outcome);
    else job.resolve(outcome);
  }
}
