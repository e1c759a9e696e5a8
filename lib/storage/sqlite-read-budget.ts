import type Database from 'better-sqlite3';
import { type CompiledQuery, type RawBuilder, type SqlBool, sql } from 'kysely';
import { BoundedMap } from '../bounded-map.js';

/** The SQL function a reader query calls to take part in the main thread's time budget. */
const FUNCTION = 'restlayer_within_budget';

/**
 * A WHERE term for SQLite reader queries (lists put it in every page and filtered count): SQLite calls it for every
 * row it visits, so on the main connection the query stops once its budget is spent. In a reader process the same
 * function is deterministic and constant, so SQLite calls it once per query and the query runs at full speed there.
 * Taking no column, it is checked in the outermost loop of a join: when SQLite starts from the joined table (a
 * customer), the listed rows it reaches from each one (that customer's orders) run between two checks.
 */
export const withinBudget: RawBuilder<SqlBool> = sql<SqlBool>`${sql.raw(FUNCTION)}()`;

/** A query that is not worth another try on the main thread goes to the readers directly for this long. */
const SLOW_FOR_MS = 60_000;
/** Queries remembered as slow (by SQL text); the oldest is forgotten first. */
const SLOW_KEPT = 500;
/** The clock is read once per this many rows: reading it costs as much as visiting a row through an index. */
const ROWS_PER_LOOK = 64;

class OverBudget extends Error {}
const OVER_BUDGET = new OverBudget('over the main thread budget');

/** Where queries run unbounded (a reader process, a store without readers): constant true, evaluated once per query (a deterministic function without arguments). */
export function allowEveryRow(database: Database.Database): void {
  database.function(FUNCTION, { deterministic: true }, () => 1);
}

/**
 * A reader query costs an extra process hop (serialising its rows, waking the reader and being woken), which for a
 * page that takes SQLite a fraction of a millisecond costs more than the query: a 50-row list page served twice as
 * many requests a second on one core on the main connection. So a query carrying `withinBudget` first runs on the
 * main connection for at most `budgetMs`, and only one that takes longer goes to a reader process, where it may run
 * up to its time limit without holding up the event loop. The main thread thus stops for at most `budgetMs` per
 * query, and a query that once overran goes straight to the readers for a while, so a slow list asked in a loop
 * costs the event loop nothing after its first try.
 */
export class MainReadBudget {
  private readonly slow = new BoundedMap<string, number>(SLOW_KEPT);
  private deadline = Number.POSITIVE_INFINITY;
  private rows = 0;

  constructor(database: Database.Database, private readonly budgetMs: number) {
    database.function(FUNCTION, { deterministic: false }, () => {
      if (++this.rows % ROWS_PER_LOOK === 0 && performance.now() > this.deadline) throw OVER_BUDGET;
      return 1;
    });
  }

  /**
   * The query's rows, read by `read` on the main connection within the budget; undefined when the query is not
   * meant for the main thread (no budget term, known slow, budget 0) or ran out of budget there.
   */
  tryRun(query: CompiledQuery, read: (query: CompiledQuery) => unknown[] | undefined): unknown[] | undefined {
    if (this.budgetMs <= 0 || !query.sql.includes(FUNCTION)) return undefined;
    const now = performance.now();
    const slowUntil = this.slow.get(query.sql);
    if (slowUntil !== undefined) {
      if (slowUntil > now) return undefined;
      this.slow.delete(query.sql);
    }
    this.deadline = now + this.budgetMs;
    this.rows = 0;
    try {
      return read(query);
    } catch (err) {
      if (err !== OVER_BUDGET) throw err;
      this.slow.set(query.sql, performance.now() + SLOW_FOR_MS);
      return undefined;
    } finally {
      // Queries outside a budgeted try (readers off, writes' own reads) run unbounded.
      this.deadline = Number.POSITIVE_INFINITY;
    }
  }
}
