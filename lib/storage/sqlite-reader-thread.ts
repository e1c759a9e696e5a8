/**
 * The query side of a reader process (sqlite-reader-process.ts): a read-only connection answering one query at a
 * time. It runs in a thread so that the process's main thread stays free while a query runs, to notice the server
 * going away.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';
import { allowEveryRow } from './sqlite-read-budget.js';
import { withStatementCache } from './sqlite-statements.js';
import type { ReaderReply, ReaderRequest } from './sqlite-reader-pool.js';

const { path, lockWaitMs } = workerData as { path: string; lockWaitMs: number };
let statements: SqliteDatabase | undefined;

function open(): SqliteDatabase {
  const database = new Database(path, { readonly: true, fileMustExist: true });
  // Blocking on another process's lock is harmless here: this thread serves nothing else.
  database.pragma(`busy_timeout = ${lockWaitMs}`);
  allowEveryRow(database);
  return withStatementCache(database);
}

function answer(request: ReaderRequest): ReaderReply {
  try {
    statements ??= open();
    const statement = statements.prepare(request.sql);
    if (!statement.reader) return { error: { message: 'The reader runs queries that return rows; write through storage.db.' } };
    return { rows: statement.all(request.parameters) as unknown[] };
  } catch (err) {
    const e = err as { message?: unknown; code?: unknown };
    return { error: { message: String(e.message), code: typeof e.code === 'string' ? e.code : undefined } };
  }
}

parentPort!.on('message', (request: ReaderRequest) => parentPort!.postMessage(answer(request)));
