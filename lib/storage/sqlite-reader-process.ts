/**
 * One read connection of the embedded store, in a process of its own (started by SqliteReaderPool): it answers one
 * query at a time, and the pool kills it to stop a query past its time limit. A process, not a worker thread:
 * better-sqlite3 has no interrupt, and Worker.terminate() waits for a running query to finish (measured: 22 s).
 */
import Database from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';
import { withStatementCache } from './sqlite-statements.js';
import type { ReaderReply, ReaderRequest } from './sqlite-reader-pool.js';

const [path, lockWaitMs] = process.argv.slice(2);
let statements: SqliteDatabase | undefined;

function open(): SqliteDatabase {
  const database = new Database(path, { readonly: true, fileMustExist: true });
  // Blocking on another process's lock is harmless here: this process serves nothing else.
  database.pragma(`busy_timeout = ${Number(lockWaitMs)}`);
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

process.on('message', (request: ReaderRequest) => process.send!(answer(request)));
// The server is gone (ended or killed): nothing is left to answer.
process.on('disconnect', () => process.exit(0));
