import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';
import { isPgServerError, pgDriver } from './pg-driver.js';
import { postgresTypes } from './postgres-types.js';
import { MAX_PREPARED_PER_CONNECTION, isStalePlan, statementName } from './prepared-statements.js';
import { StoreOutcomeUnknownError, StoreUnavailableError } from './store-faults.js';

export interface BoundedPoolOptions {
  url: string;
  max: number;
  /** Bound of opening a connection and of waiting for a pooled one. */
  acquireTimeoutMs: number;
  /** Client-side bound of one statement: a server that never answers (a frozen flow, a blackhole) fails it. */
  queryTimeoutMs: number;
  /** Server-side statement_timeout of each session, when set (it answers SQLSTATE 57014 first). */
  statementTimeoutMs?: number;
  /**
   * Storage:Postgres:PreparedStatements: statements are sent named, so each connection parses each text once
   * (prepared-statements.ts). Off for a pooler that does not keep a session's prepared statements (PgBouncer's
   * transaction mode before 1.21).
   */
  prepare: boolean;
  /**
   * Prepared statements are still planned for their values at each run (the reader's: list pages and counts, whose
   * index choice depends on the values, a common status against a rare one). Otherwise PostgreSQL's default applies:
   * after five runs a generic plan, when it is no worse, which suits reads and writes by key. With generic plans
   * allowed on the reader too, the benchmark's list page cost the database 1.16 cores instead of 0.73 and fell to
   * 0.79× NestJS; planned each run it gains as the rest does (preparing then saves the parse and analysis).
   */
  planEachRun?: boolean;
  /** Every fault, as the error the caller gets; the storage logs episodes from them. */
  onFault(err: StoreUnavailableError | StoreOutcomeUnknownError): void;
  /** A statement answered: an episode of faults is over. */
  onAnswer(): void;
  /** A connection lost while idle in the pool (no caller to tell). */
  onIdleError(err: Error): void;
  /**
   * When the latest fault was seen (performance.now()), shared by the pools of one server: a fault met through one
   * pool (a write, a readiness check) says the network to the server failed, so the other pool's idle connections are
   * as suspect as its own. Kept apart, the reader's connections frozen by a blackhole no list had met were handed out
   * after it ended, and each cost a read its whole bound (a 503 seconds after recovery).
   */
  faultClock?: FaultClock;
}

/** The latest fault of any pool that shares it. */
export interface FaultClock {
  lastFault: number;
}

const STORE = 'PostgreSQL';
/** SQLSTATE class 08 (connection exception) and 57P01-57P03 (shutdown, cannot connect now) are the server going away. */
const isServerGoing = (code: string | undefined) => !!code && (code.startsWith('08') || /^57P0[123]$/.test(code));

/**
 * One statement's answer, through a callback made here and bounded by a timer of its own, not through pg's promise
 * or its query_timeout (which wraps the statement's callback in a closure of pg's Client#query, beside the Query, its
 * Result and so every row). With either of pg's, every row a page read (pg's row objects and their values, the
 * StoredDates) outlived V8's young-generation collections and was promoted to the old generation, whatever the young
 * generation's size (--max-semi-space-size 4, 16 or 64 MB alike): ~75 MB promoted per 100,000 exported orders
 * (--trace-gc-nvp), the server's RSS 45-67 MB higher after each CSV export on PostgreSQL (bench/export.js). Answered
 * here, a page dies young: ~3 MB promoted per export, RSS 3-6 MB. A plain pg.Client reading the same pages in a loop
 * shows the same (~45 MB promoted per 100,000 rows with its promise or with query_timeout, under 1 MB with a callback
 * and no query_timeout), so it is how pg answers, not Kysely's or restlayer's layers. Why V8's scavenger keeps those
 * pages was not pinned down (pure-JS reproductions keep pages alive in other shapes of promise and callback too):
 * this is measured, not derived, and bench/export.js --store postgres is what shows it. The bound fails the
 * statement as pg's did, with "Query read timeout"; the pool then destroys the connection, which may still be
 * waiting for the answer, on release (not a server's answer: `broken`).
 */
function answered(client: pg.PoolClient, config: pg.QueryConfig, boundMs: number): Promise<pg.QueryResult> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('Query read timeout')), boundMs);
    try {
      client.query(config, (err: Error | undefined, result: pg.QueryResult) => {
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(result);
      });
    } catch (err) {
      // Refused before it was sent (a client already ended): no answer will come to clear the bound.
      clearTimeout(timer);
      reject(err);
    }
  });
}

/**
 * A pg pool for Kysely whose every wait is bounded and whose broken connections leave it: a connection that failed
 * for any reason other than the server's own answer (pg.DatabaseError) is destroyed instead of going back to the
 * pool, where it would hold a slot for good. Faults reach callers as StoreUnavailableError, or
 * StoreOutcomeUnknownError when they hit a COMMIT (the server may have saved it).
 */
export function boundedPool(options: BoundedPoolOptions): PostgresPool {
  const pool = new (pgDriver().Pool)({
    connectionString: options.url,
    max: options.max,
    connectionTimeoutMillis: options.acquireTimeoutMs,
    idleTimeoutMillis: 30_000,
    // No query_timeout: statements are bounded by answered() instead (see there why).
    types: postgresTypes,
    ...(options.prepare && options.planEachRun ? { options: '-c plan_cache_mode=force_custom_plan' } : {}),
    ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
    // Idle flows that a NAT or firewall dropped are found by the kernel instead of at the next query.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  /**
   * When each connection last proved alive (opened, or a statement answered). A connection idle since before the
   * latest fault is suspect: the fault (a frozen or blackholed network) likely killed it too, silently, and using it
   * would cost a request its whole bound. It is replaced on checkout instead.
   */
  const alive = new WeakMap<pg.PoolClient, number>();
  /** The statement names each connection has prepared (pg sends Parse only for a name new to the connection). */
  const preparedBy = new WeakMap<pg.PoolClient, Set<string>>();
  const clock: FaultClock = options.faultClock ?? { lastFault: 0 };
  pool.on('error', (err) => {
    clock.lastFault = performance.now();
    options.onIdleError(err);
  });
  pool.on('connect', (client) => {
    alive.set(client as pg.PoolClient, performance.now());
    // A checked-out client reports its socket errors here too; the failed query itself rejects and is classified.
    client.on('error', () => {});
  });

  const fault = (err: unknown, detail: string, outcomeUnknown: boolean) => {
    const what = `${detail} (${err instanceof Error ? err.message : String(err)})`;
    clock.lastFault = performance.now();
    const wrapped = outcomeUnknown ? new StoreOutcomeUnknownError(STORE, what, { cause: err }) : new StoreUnavailableError(STORE, what, { cause: err });
    options.onFault(wrapped);
    return wrapped;
  };

  return {
    async connect(): Promise<PostgresPoolClient> {
      let client: pg.PoolClient;
      for (let replaced = 0; ; replaced++) {
        try {
          client = await pool.connect();
        } catch (err) {
          throw fault(err, 'no connection', false);
        }
        // Suspects are destroyed (at most a pool's worth, so a fault during the loop cannot keep it going).
        if ((alive.get(client) ?? 0) >= clock.lastFault || replaced >= options.max) break;
        client.release(true);
      }
      let broken: Error | undefined;
      /** Set once a COMMIT failed: the ROLLBACK Kysely then sends answers the same "outcome unknown". */
      let commitInDoubt: StoreOutcomeUnknownError | undefined;
      let prepared = preparedBy.get(client);
      if (!prepared) preparedBy.set(client, prepared = new Set());
      /** Whether the connection goes when released: it prepared its share of statements, or holds a stale one. */
      let retire = false;
      let inTransaction = false;
      const send = (text: string, parameters: unknown[], named: boolean) => {
        if (!named) return answered(client, { text, values: parameters }, options.queryTimeoutMs);
        const name = statementName(text);
        if (!prepared.has(name)) {
          prepared.add(name);
          retire ||= prepared.size > MAX_PREPARED_PER_CONNECTION;
        }
        return answered(client, { name, text, values: parameters }, options.queryTimeoutMs);
      };
      const run = async <R>(text: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> => {
        if (commitInDoubt) throw commitInDoubt;
        if (broken) throw fault(broken, 'connection lost', false);
        if (/^\s*(begin|start)\b/i.test(text)) inTransaction = true;
        else if (/^\s*(commit|rollback)\b/i.test(text)) inTransaction = false;
        try {
          let result;
          try {
            result = await send(text, parameters as unknown[], options.prepare);
          } catch (err) {
            if (!(isPgServerError(err) && isStalePlan(err))) throw err;
            // A migration changed what a prepared statement answers. Outside a transaction the statement failed
            // alone and is sent again unprepared; inside one, the transaction is lost. Either way the connection,
            // which may hold more such statements, is replaced when released.
            retire = true;
            if (inTransaction) throw err;
            result = await send(text, parameters as unknown[], false);
          }
          alive.set(client, performance.now());
          options.onAnswer();
          return result as unknown as PostgresQueryResult<R>;
        } catch (err) {
          const serverAnswer = isPgServerError(err);
          if (serverAnswer && !isServerGoing(err.code)) {
            alive.set(client, performance.now());
            options.onAnswer();
            throw err;
          }
          // Lost, cut short or told the server is going away (57P01...): the connection is no use any more.
          broken = err instanceof Error ? err : new Error(String(err));
          const committing = /^\s*commit\b/i.test(text);
          const wrapped = fault(err, committing ? 'connection lost during COMMIT' : 'connection lost', committing);
          if (wrapped instanceof StoreOutcomeUnknownError) commitInDoubt = wrapped;
          throw wrapped;
        }
      };
      const query = ((textOrCursor: string | PostgresCursor<unknown>, parameters?: ReadonlyArray<unknown>) => {
        if (typeof textOrCursor !== 'string') return client.query(textOrCursor as unknown as pg.Submittable) as unknown as PostgresCursor<unknown>;
        return run(textOrCursor, parameters ?? []);
      }) as PostgresPoolClient['query'];
      return {
        query,
        // A broken or retired connection is destroyed (release with an error, or true), so the pool opens a fresh one in its place.
        release: () => client.release(broken ?? commitInDoubt ?? retire),
      };
    },
    end: () => pool.end(),
  };
}
