import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import {
  CompiledQuery, type DatabaseConnection, type Driver, Kysely, type QueryCompiler, type QueryResult, SqliteDialect,
  type SqliteDialectConfig, SqliteDriver, type TransactionSettings,
} from 'kysely';
import { currentSignal } from '../envelope/request-scope.js';
import { sqliteDialect } from './dialects/sqlite-dialect.js';
import { keepDatabasePrivate } from './private-file.js';
import { withSetupLock } from './sqlite-setup-lock.js';
import { sqliteReaderKysely } from './reader-dialect.js';
import { StatementCount } from './statement-count.js';
import { MainReadBudget, allowEveryRow } from './sqlite-read-budget.js';
import { SqliteReaderPool } from './sqlite-reader-pool.js';
import { type FaultLog, StorageFaultWatch, storageFaultCode } from './sqlite-faults.js';
import { SqliteFileWatch, walAtPathHasFrames } from './sqlite-files.js';
import { withStatementCache } from './sqlite-statements.js';
import { StoreOutcomeUnknownError, StoreUnavailableError } from './store-faults.js';
import { avoidNeedlessSkipScans } from './sqlite-statistics.js';
import { DEFAULT_QUERY_TIMEOUT_MS, type Storage } from './storage.js';
import type { StorageProvider } from './storage-provider.js';
import type { Tables } from './tables.js';

/** How long a query waits for another process's lock on the file before it fails (and the request answers 503). */
export const SQLITE_LOCK_WAIT_MS = 5_000;

/** Pauses between attempts, as SQLite's own busy handler spaces them; the last one repeats. */
const PAUSES_MS = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100];

/** "Someone else holds the lock": worth waiting for. (SQLITE_BUSY_SNAPSHOT is not: no wait makes a stale snapshot fresh.) */
const isBusy = (err: unknown) => {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_RECOVERY' || code === 'SQLITE_BUSY_TIMEOUT';
};

/**
 * The connection as Kysely sees it. better-sqlite3 is synchronous, so SQLite's own busy_timeout would wait for a lock
 * inside one call and stop the whole process meanwhile: no request, not even a health check, is answered while
 * another process (a worker, the CLI) holds the write lock. Here a busy query waits asynchronously instead, and,
 * outside a transaction, gives the connection to this process's other queries while it waits.
 */
class WaitingConnection implements DatabaseConnection {
  inTransaction = false;

  constructor(
    private readonly driver: SqliteDriver,
    private connection: DatabaseConnection,
    private readonly waitMs: number,
    private readonly faults: StorageFaultWatch,
    private readonly files: SqliteFileWatch,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const deadline = Date.now() + this.waitMs;
    // A write, or a transaction (which writes: BEGIN IMMEDIATE), goes only to the files at the database's path.
    const writing = query.sql === 'begin immediate' || (!this.inTransaction && WRITE.test(query.sql));
    if (writing) refuseIfReplaced(this.files, false);
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await this.connection.executeQuery<R>(query);
        // A write outside a transaction, or a commit, reached the file: whatever failed before works again. One with
        // RETURNING has rows instead of numAffectedRows; it is checked all the same, since the check before a write may
        // stand on an earlier one (problemBeforeWrite) and this is the one its success rests on.
        if (query.sql === 'commit' || (!this.inTransaction && query.sql !== 'begin immediate' && (writing || result.numAffectedRows !== undefined))) {
          // Unless the files were replaced meanwhile: then it reached files no one will read (or it may have).
          refuseIfReplaced(this.files, true);
          this.faults.wrote();
        }
        return result;
      } catch (err) {
        if (!isBusy(err) || Date.now() >= deadline) {
          this.faults.failed(err);
          // A write that fails may fail because its files went: look.
          if (!(err instanceof StoreOutcomeUnknownError || err instanceof StoreUnavailableError)) this.files.problem();
          throw err;
        }
      }
      const pause = Math.max(1, Math.min(PAUSES_MS[Math.min(attempt, PAUSES_MS.length - 1)], deadline - Date.now()));
      if (this.inTransaction) {
        await sleep(pause);
      } else {
        // Nothing is held between statements outside a transaction: let the other queries of this process run.
        await this.driver.releaseConnection();
        try {
          await sleep(pause);
        } finally {
          this.connection = await this.driver.acquireConnection();
        }
      }
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    return this.connection.streamQuery<R>(query, chunkSize);
  }
}

/** A statement that writes, outside a transaction (inside one, BEGIN IMMEDIATE and COMMIT are checked). */
const WRITE = /^\s*(insert|update|delete|replace)\b/i;

/**
 * Refuses a write while the database's files are not the ones open (lib/storage/sqlite-files.ts): before it, with 503
 * Storage_Unavailable (nothing was written; problemBeforeWrite says when it may trust a check of the last few ms);
 * after it (`done`), with 503 Storage_OutcomeUnknown, since it went into the files this process has open, which are
 * saved into the database only if no other process has written since.
 */
function refuseIfReplaced(files: SqliteFileWatch, done: boolean): void {
  const problem = done ? files.problem() : files.problemBeforeWrite();
  if (!problem) return;
  throw done ? new StoreOutcomeUnknownError('SQLite', `${problem}: the write went to the files this server had open`)
    : new StoreUnavailableError('SQLite', `${problem}: writes are refused until the server restarts`);
}

/**
 * How many queries or transactions hold the connection now. A query waiting for another process's lock counts too,
 * though it lends the connection out meanwhile: `readNow` then declines for up to the lock wait, which is safe.
 */
interface ConnectionUse {
  holders: number;
}

class WaitingSqliteDriver implements Driver {
  constructor(
    private readonly driver: SqliteDriver,
    private readonly database: Database.Database,
    private readonly waitMs: number,
    private readonly use: ConnectionUse,
    private readonly faults: StorageFaultWatch,
    private readonly files: SqliteFileWatch,
  ) {}

  init() {
    return this.driver.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.driver.acquireConnection();
    this.use.holders++;
    return new WaitingConnection(this.driver, connection, this.waitMs, this.faults, this.files);
  }

  /**
   * BEGIN IMMEDIATE takes the write lock first (waiting for it like any busy query, holding nothing), so a
   * transaction that reads and then writes can never find its snapshot stale when it comes to write: with a plain
   * BEGIN, two processes refreshing one token at once failed with SQLITE_BUSY / SQLITE_BUSY_SNAPSHOT.
   */
  async beginTransaction(connection: DatabaseConnection, _settings: TransactionSettings): Promise<void> {
    const c = connection as WaitingConnection;
    await c.executeQuery(CompiledQuery.raw('begin immediate'));
    c.inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as WaitingConnection;
    await c.executeQuery(CompiledQuery.raw('commit'));
    c.inTransaction = false;
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as WaitingConnection;
    try {
      // A COMMIT that failed on a full disk or an I/O error has already been rolled back by SQLite: a ROLLBACK would
      // fail too ("no transaction is active") and hide the error that matters behind one that does not.
      if (!this.database.inTransaction) return;
      await c.executeQuery(CompiledQuery.raw('rollback'));
    } finally {
      c.inTransaction = false;
    }
  }

  savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    return this.driver.savepoint(connection, name, compile);
  }

  rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    return this.driver.rollbackToSavepoint(connection, name, compile);
  }

  releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    return this.driver.releaseSavepoint(connection, name, compile);
  }

  releaseConnection(_connection: DatabaseConnection): Promise<void> {
    this.use.holders--;
    return this.driver.releaseConnection();
  }

  destroy() {
    return this.driver.destroy();
  }
}

class WaitingSqliteDialect extends SqliteDialect {
  constructor(
    private readonly settings: SqliteDialectConfig,
    private readonly database: Database.Database,
    private readonly waitMs: number,
    private readonly use: ConnectionUse,
    private readonly faults: StorageFaultWatch,
    private readonly files: SqliteFileWatch,
  ) {
    super(settings);
  }

  override createDriver(): Driver {
    return new WaitingSqliteDriver(new SqliteDriver(this.settings), this.database, this.waitMs, this.use, this.faults, this.files);
  }
}

export interface SqliteOptions {
  /** How long a query waits for a lock held by another process (default SQLITE_LOCK_WAIT_MS). */
  lockWaitMs?: number;
  /** How many reader processes serve `reader` (0: it reads on the main connection, without a time limit). Default 2. */
  readers?: number;
  /** The time limit of a query through `reader` (default DEFAULT_QUERY_TIMEOUT_MS). */
  queryTimeoutMs?: number;
  /** How long a list query may first run on the main connection (lib/storage/sqlite-read-budget.ts); 0: never. Default 2. */
  mainThreadReadMs?: number;
  /** Where storage faults (I/O errors, a full disk, an unwritable file) are logged; none: not logged. */
  faultLog?: FaultLog;
}

/**
 * The pragmas of a new connection, and a first write: a connection opened while the file or its -shm cannot be
 * written reads fine but stays read-only for its whole life (SQLite maps the -shm read-only once per process), even
 * after the files are writable again. A server should not start like that: it fails, saying which file to check,
 * and a supervisor retries it later. The write rewrites the header's user_version with its own value, as the
 * readiness check does.
 */
function prepareConnection(database: Database.Database, path: string, lockWaitMs: number): void {
  try {
    // Opening may meet another process's lock: wait for it here, where blocking is harmless (nothing is served yet).
    database.pragma(`busy_timeout = ${lockWaitMs}`);
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = FULL');
    database.pragma('foreign_keys = ON');
    // Statistics for the query planner, kept as SQLite advises: ANALYZE where a table has none or grew much since, within
    // a bounded effort (analysis_limit). Without any, SQLite guesses every range and join alike.
    database.pragma('optimize = 0x10002');
    avoidNeedlessSkipScans(database);
    if (path !== ':memory:' && path !== '') database.pragma(`user_version = ${Math.trunc(Number(database.pragma('user_version', { simple: true })))}`);
    // From now on, waits happen in WaitingConnection, without stopping the process.
    database.pragma('busy_timeout = 0');
  } catch (err) {
    database.close();
    const code = storageFaultCode(err);
    if (!code) throw err;
    throw Object.assign(new Error(`cannot write the SQLite database at ${path} (${(err as Error).message}): check the file, `
      + 'the -wal and -shm files next to it (owner, mode, lsattr) and the disk (df)'), { code });
  }
}

/**
 * After the -wal and -shm were removed or replaced under this process, the WAL it still has open may hold committed
 * writes not yet copied into the database file (acknowledged, so they must not be lost). They are copied there now (a
 * checkpoint through the connection that has them open) when that is safe: the database file is still the one open,
 * and no other process has written to the new -wal at the path (its frames, made against the file as it was, and
 * these would overwrite each other's pages). Blocks up to 2 s for readers to let go: this is a fault's path.
 */
function saveOpenWal(database: Database.Database, path: string, files: SqliteFileWatch): string | undefined {
  if (!files.databaseFileKept()) return 'not saved: the database file itself was removed or replaced';
  if (walAtPathHasFrames(path)) return 'not saved: another process has written to the new -wal since; its frames and these cannot both go in';
  try {
    database.pragma('busy_timeout = 2000');
    const [r] = database.pragma('wal_checkpoint(FULL)') as { busy: number; log: number; checkpointed: number }[];
    if (r.log < 0) return 'not saved by this process: another connection was saving them at that moment';
    return r.busy ? `partly saved into the database file (${r.checkpointed} of ${r.log} frames: readers held the rest)`
      : `saved into the database file (${r.log} frames)`;
  } catch (err) {
    // A statement of this connection is still being read (a streamed query): the caller tries again in a moment.
    if (database.inTransaction || /busy executing a query/i.test((err as Error).message)) return undefined;
    return `not saved: ${(err as Error).message}`;
  } finally {
    try {
      database.pragma('busy_timeout = 0');
    } catch {
      // The statement still being read: the busy timeout is set again on the next attempt.
    }
  }
}

/** The embedded default: one file, WAL journal, every commit synced so a crash loses nothing committed. */
export function openSqlite(path: string, options: SqliteOptions = {}): Storage {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  keepDatabasePrivate(path);
  const database = new Database(path);
  const lockWaitMs = options.lockWaitMs ?? SQLITE_LOCK_WAIT_MS;
  prepareConnection(database, path, lockWaitMs);
  const statements = withStatementCache(database);
  const use: ConnectionUse = { holders: 0 };
  const faults = new StorageFaultWatch(path, options.faultLog);
  const onFile = path !== ':memory:' && path !== '';
  const files = new SqliteFileWatch(path, (what) => {
    // Writes are refused from now on. What this process wrote before is saved at once, before any other process can
    // write to the new files (a worker starting takes a second), unless a transaction is open on the connection (a
    // checkpoint cannot run inside one): then as soon as it ends, which every write's COMMIT check now hastens.
    const since = Date.now();
    const save = () => {
      const openWal = database.inTransaction ? undefined : saveOpenWal(database, path, files);
      if (openWal === undefined && Date.now() - since < 30_000) return void setTimeout(save, 5).unref();
      options.faultLog?.error('SQLite database files replaced under the server: writes answer 503 and readiness 503 until it restarts', {
        what, openWal: openWal ?? 'not saved: a transaction held the connection for 30 s',
        check: 'whoever removed or replaced the files (a cleanup job, a backup tool copying over the live files, a mistaken rm); '
          + 'then restart the server (SIGTERM, then start it): it opens the files at the path',
      });
    };
    save();
  });
  if (onFile) files.capture();
  // Found without traffic too, within a second (readiness and every write also look).
  const fileCheck = onFile ? setInterval(() => files.problem(), 1_000) : undefined;
  fileCheck?.unref();
  const count = new StatementCount();
  const db = new Kysely<Tables>({ dialect: new WaitingSqliteDialect({ database: statements }, database, lockWaitMs, use, faults, files), log: count.log });
  // A private database (in memory, or a temporary one) has no file another connection could open.
  const readers = path === ':memory:' || path === '' || options.readers === 0 ? undefined
    : new SqliteReaderPool(path, { size: options.readers ?? 2, timeoutMs: options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS, lockWaitMs });
  function readNow<R>(query: CompiledQuery<R>): R[] | undefined {
    // Only on an idle connection: a transaction in progress would show its uncommitted changes to this read.
    if (use.holders > 0) return undefined;
    try {
      return statements.prepare(query.sql).all(query.parameters) as R[];
    } catch (err) {
      // Another process's lock (WAL recovery): the queued path knows how to wait for it.
      if (isBusy(err)) return undefined;
      faults.failed(err);
      throw err;
    }
  }
  let reader: Kysely<Tables> = db;
  if (readers) {
    const budget = new MainReadBudget(database, options.mainThreadReadMs ?? 2);
    reader = sqliteReaderKysely(count.log, (query) => {
      const rows = budget.tryRun(query, readNow);
      // The request's signal: a client that hung up frees the reader running its query.
      return rows ? Promise.resolve(rows) : readers.run(query, currentSignal());
    });
  } else {
    allowEveryRow(database);
  }
  return {
    db,
    reader,
    statements: count,
    dialect: sqliteDialect,
    values: sqliteDialect,
    readNow(query) {
      const rows = readNow(query);
      if (rows) count.add();
      return rows;
    },
    /**
     * Readiness: a write, committed, because `select 1` never touches the file and reads go on while every write fails
     * (a full disk, an unwritable -wal or -shm). It rewrites the header's user_version with its own value (nothing any
     * reader sees change): one WAL frame and one sync per check, straight on the connection. It never waits, so a probe
     * does not queue behind a transaction: while this connection is inside one, or another process holds the write
     * lock (contention, which is no fault), it answers from what the last writes met.
     */
    async ping() {
      const replaced = files.problem();
      if (replaced) throw new StoreUnavailableError('SQLite', replaced);
      const standing = () => new Error('the SQLite storage fault stands: no write has been committed since it began');
      if (use.holders > 0 || database.inTransaction) {
        if (faults.failing) throw standing();
        return;
      }
      try {
        database.exec('begin immediate'); // busy_timeout is 0 on this connection: another process's lock fails at once
      } catch (err) {
        if (!isBusy(err)) faults.failed(err);
        if (!isBusy(err) || faults.failing) throw isBusy(err) ? standing() : err;
        return;
      }
      try {
        database.pragma(`user_version = ${Math.trunc(Number(database.pragma('user_version', { simple: true })))}`);
        database.exec('commit');
        faults.wrote();
      } catch (err) {
        if (database.inTransaction) database.exec('rollback');
        faults.failed(err);
        files.problem();
        throw err;
      }
    },
    // Workers are prepared by their primary, but every CLI command sets the database up too: one at a time.
    exclusive: (fn) => onFile ? withSetupLock(path, () => fn(db)) : fn(db),
    async close() {
      if (fileCheck) clearInterval(fileCheck);
      readers?.close();
      // A connection whose files were replaced is left open for the process's exit to drop: closing the last
      // connection to a database in WAL mode checkpoints and then deletes the -wal at the path, by name, which is now
      // another one, with whatever other processes committed there and did not checkpoint yet.
      if (onFile && files.problem()) return;
      // What this connection learnt of its queries since it opened: SQLite's advice before closing a connection.
      try {
        if (database.open) database.pragma('optimize');
      } catch {
        // Another process holds the write lock: the statistics wait for the next close or start.
      }
      await db.destroy();
    },
  };
}

/** Storage:Provider sqlite: the file at Storage:Sqlite:Path, with its reader processes. */
export const sqliteProvider: StorageProvider = {
  open: (config, { faultLog }) => openSqlite(config.Storage.Sqlite.Path, {
    readers: config.Storage.Sqlite.ReadWorkers, queryTimeoutMs: config.Storage.QueryTimeoutSeconds * 1000,
    mainThreadReadMs: config.Storage.Sqlite.MainThreadReadMilliseconds, faultLog,
  }),
};
