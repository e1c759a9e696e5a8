import {
  type CompiledQuery, type DatabaseConnection, type Dialect, type Driver, Kysely, type LogEvent, type QueryResult, SqliteAdapter, SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import type { Tables } from './tables.js';

const noTransactions = () => Promise.reject(new Error('The reader runs single queries, not transactions: use storage.db.'));

/** A Kysely driver whose every query is one call of `run`; it holds no connection of its own. */
class RunDriver implements Driver {
  private readonly connection: DatabaseConnection;

  constructor(run: (query: CompiledQuery) => Promise<unknown[]>) {
    this.connection = {
      executeQuery: async <R>(query: CompiledQuery): Promise<QueryResult<R>> => ({ rows: (await run(query)) as R[] }),
      async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
        throw new Error('The reader does not stream: ask for a page with limit and offset.');
      },
    };
  }

  async init() {}
  async acquireConnection() {
    return this.connection;
  }
  beginTransaction = noTransactions;
  commitTransaction = noTransactions;
  rollbackTransaction = noTransactions;
  async releaseConnection() {}
  async destroy() {}
}

/** A Kysely for SQLite queries run by `run` (the reader processes): it compiles as SQLite and only reads. */
export function sqliteReaderKysely(log: (event: LogEvent) => void, run: (query: CompiledQuery) => Promise<unknown[]>): Kysely<Tables> {
  const dialect: Dialect = {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new RunDriver(run),
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createIntrospector: (db) => new SqliteIntrospector(db),
  };
  return new Kysely<Tables>({ dialect, log });
}
