/**
 * The query side of a reader process (sqlite-reader-process.ts): a read-only connection answering one query at a
 * time. It runs in a thread so that the process's main thread stays free while a query runs, to notice the server
 * going away.
 */
import { serialize } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { BoundedMap } from '../bounded-map.js';
import { allowEveryRow } from './sqlite-read-budget.js';
import type { ReaderReady, ReaderReply, ReaderRequest } from './sqlite-reader-pool.js';

const { path, lockWaitMs } = workerData as { path: string; lockWaitMs: number };
let database: Database.Database | undefined;
/** Prepared statements kept by their text (compiling is a fifth of a list's time), each answering arrays. */
const statements = new BoundedMap<string, Database.Statement>(500);

function open(): Database.Database {
  const opened = new Database(path, { readonly: true, fileMustExist: true });
  // Blocking on another process's lock is harmless here: this thread serves nothing else.
  opened.pragma(`busy_timeout = ${lockWaitMs}`);
  allowEveryRow(opened);
  return opened;
}

function prepared(sql: string): Database.Statement {
  let statement = statements.get(sql);
  if (!statement) {
    database ??= open();
    statement = database.prepare(sql);
    if (statement.reader) statement.raw(true);
    statements.set(sql, statement);
  }
  return statement;
}

function answer(request: ReaderRequest): ReaderReply {
  try {
    const statement = prepared(request.sql);
    if (!statement.reader) return { error: { message: 'The reader runs queries that return rows; write through storage.db.' } };
    // Values by position and the names once: a page of rows crosses two hops (thread, process) as arrays, which cost
    // both sides a fraction of what objects repeating every column's name do; the pool makes the objects again. The
    // names are read each time: SQLite re-prepares a statement after a schema change, and `*` may then mean others.
    return { columns: statement.columns().map((c) => c.name), values: statement.all(request.parameters) as unknown[][] };
  } catch (err) {
    const e = err as { message?: unknown; code?: unknown };
    return { error: { message: String(e.message), code: typeof e.code === 'string' ? e.code : undefined } };
  }
}

// The answer leaves as the bytes the server reads it from, moved (not copied) to the process's thread, which only
// passes them on: a page is made into objects once, in the server, instead of once per hop (thread, process, server).
parentPort!.on('message', (request: ReaderRequest) => {
  const bytes = serialize(answer(request));
  parentPort!.postMessage(bytes, [bytes.buffer]);
});

// The connection opened now (better-sqlite3 loads its addon at the first one), so that the pool starts the query's time
// limit when only the query is left; one that fails to open is tried again by the query, which answers the error.
try {
  database = open();
} catch {
  database = undefined;
}
const ready = serialize({ ready: true } satisfies ReaderReady);
parentPort!.postMessage(ready, [ready.buffer]);
