import type { ColumnDataType, ColumnDefinitionBuilder, CompiledQuery, Kysely, QueryExecutorProvider, RawBuilder, SqlBool } from 'kysely';
import type { SqlValues } from '../sql-values.js';

/**
 * What differs between the SQL stores the layer runs on, in one object per provider (./sqlite-dialect.ts,
 * ./postgres-dialect.ts), as a Kysely dialect holds what differs for its query compiler. Code that builds SQL or a
 * schema asks the dialect (`storage.dialect`, or the `dialect` a module's migrations get), never which provider it
 * is. A new provider is a new dialect, an opener whose Storage carries it, and one line in ../providers.ts;
 * everything else is shared Kysely code.
 */
/** An index as the store describes it (`StorageDialect.indexDefinitions`). */
export interface IndexDefinition {
  readonly name: string;
  readonly definition: string;
  readonly note?: string;
}

export interface StorageDialect extends SqlValues {
  /** Column types of values the providers store differently (see lib/storage/tables.ts). */
  readonly types: {
    /** An instant: fixed-width ISO text in SQLite, timestamptz in PostgreSQL. */
    readonly date: ColumnDataType;
    /** 0/1 in SQLite, boolean in PostgreSQL. */
    readonly bool: ColumnDataType;
    /** A floating-point number. */
    readonly number: ColumnDataType;
    /**
     * A 64-bit identity for tables that outgrow 2^31 rows (the audit trail): bigint in PostgreSQL; integer in SQLite,
     * which is 64-bit already and must be spelled so for an autoincrement key. Read back as a JS number (exact to 2^53).
     */
    readonly bigId: ColumnDataType;
    /**
     * An exact amount (money fields): PostgreSQL's numeric(15,4); SQLite's integer of ten-thousandths (exact,
     * indexable, summed exactly). Written through `money()` and read through `toMoney()` (docs/money.md).
     */
    readonly money: ColumnDataType;
  };
  /** Makes `column` an integer primary key the store numbers itself (an autoincrement or identity column). */
  identity(column: ColumnDefinitionBuilder): ColumnDefinitionBuilder;
  /**
   * Moves the numbering of `table`'s identity `column` past the largest id there (a no-op where the column is none,
   * or where the store numbers from the largest id anyway): after rows were written with explicit ids.
   */
  syncIdentity(db: QueryExecutorProvider, table: string, column: string): Promise<void>;
  /**
   * Whether ALTER TABLE changes a column in place (drops NOT NULL, adds an identity); where it cannot (SQLite), a
   * migration rebuilds the table as that store's documentation prescribes.
   */
  readonly altersColumnsInPlace: boolean;

  /**
   * Text as criterion SW compares it and the index that serves SW holds it: lower case, in a collation where a
   * prefix's range holds exactly the texts that start with it.
   */
  foldedText(column: string): RawBuilder<string>;
  /** Whether NULLs come before every value in an ascending order (SQLite) or after them (PostgreSQL). */
  readonly nullsFirst: boolean;
  /**
   * A column's value as it compares exactly once bound back as a parameter, where reading it as a value would not:
   * PostgreSQL's timestamps come back cut to milliseconds (lib/storage/postgres-types.ts), their text does not. Kept
   * list positions (lib/storage/list-positions.ts) are read so; without it, the value itself.
   */
  exactValue?(column: RawBuilder<unknown>): RawBuilder<unknown>;
  /**
   * The join of a page's rows to its keys that keeps the keys' order: SQLite's planner otherwise may walk a whole
   * sort index (a CROSS JOIN fixes its join order); PostgreSQL's starts at the page itself with a plain join.
   */
  readonly joinInOrder: RawBuilder<unknown>;
  /**
   * Whether writers run side by side, so a transaction locks the rows it reads before it writes them (SELECT ... FOR
   * UPDATE). SQLite runs one writer at a time: nothing to lock.
   */
  readonly locksRows: boolean;

  /**
   * Whether rows live in a b-tree ordered by the key (SQLite's rowid tables): every index then ends with the key by
   * itself, an index of a column alone gains nothing for counts, and an offset walked on the table reads whole rows,
   * so an index of the key alone pays. Otherwise (PostgreSQL's heap) an index names the key to serve a page's keys
   * alone, may carry the column it folds (INCLUDE), and the primary key is the key's own index already.
   */
  readonly clusteredByKey: boolean;
  /**
   * The rows a CSV export reads a time (lib/routing/csv-export.ts), each page an indexed seek after the cursor. Where
   * the rows are parsed and made text on the server's main thread (PostgreSQL), a page is one stretch of work that
   * other requests wait behind, so pages are small; where reader processes read and pack them (SQLite), larger pages
   * cost the main thread little and keep fewer round trips.
   */
  readonly exportPageRows: number;
  /** Makes the store keep `table`'s statistics and visibility fresh for index-only reads (PostgreSQL's autovacuum). */
  tuneForLists(db: Kysely<unknown>, table: string): Promise<void>;
  /**
   * After a bulk load, at once: the planner's statistics, and where index-only scans need it (PostgreSQL), the
   * visibility map. Outside a transaction.
   */
  refreshStatistics(db: QueryExecutorProvider): Promise<void>;
  /**
   * Makes `table`'s writes raise its generation in the `changes` table (lib/storage/list-changes.ts), in the writer's
   * own transaction.
   */
  trackChanges(db: Kysely<unknown>, changes: string, table: string): Promise<void>;
  /** Makes an index that serves criterion CN (contains) on `table.column`, whose key column is `key`, where the store can. */
  createFullTextIndex(db: Kysely<unknown>, table: string, column: string, key: string): Promise<void>;
  /**
   * The condition that `ref` (`alias.key` of `table`) is the key of a row whose `column` contains `text`, through the
   * index of `createFullTextIndex`; undefined where the list's own LIKE is the way (the index serves it, or cannot).
   */
  fullTextMatch(table: string, column: string, ref: string, text: string): RawBuilder<SqlBool> | undefined;
  /**
   * The indexes of `table` with the statements that made them (as the store keeps them), of this schema, and the note
   * an index carries where the store keeps notes (PostgreSQL's COMMENT; see `tenantLedInPlace`).
   */
  indexDefinitions(db: QueryExecutorProvider, table: string): Promise<IndexDefinition[]>;
  /**
   * Where, with tenancy on, a list index's tenant-led twin takes its place instead of standing beside it
   * (lib/storage/tenant-indexes.ts): PostgreSQL, whose reader plans each list statement at each run (the values
   * choose the index) and whose planner weighs every index of the table each time: with twins beside their originals
   * the orders table had 40 indexes, and planning a page took 0.87 ms against 0.36 with tenancy off (108,000 orders).
   * SQLite compiles a statement once and keeps it, and its choice between a twin and a walk of the table in key order
   * (tenantTwinOf's `rangesLast`) wants both: undefined.
   */
  readonly tenantLedInPlace?: {
    /** At once: drops index `name`, renames index `by` to `name` and notes `note` on it (none: no note). */
    replace(db: QueryExecutorProvider, name: string, by: string, note?: string): Promise<void>;
    /**
     * At once: renames index `name` to `twin`, without its note, and index `by` to `name` (`replace` that keeps the index
     * it displaces). Without it, a look-up column that loses every index led by it after `replace` keeps none.
     */
    putBeside?(db: QueryExecutorProvider, name: string, by: string, twin: string): Promise<void>;
    /** The columns of `table` that are the one column of a foreign key: the database looks rows up by each, without a tenant. */
    foreignKeyColumns(db: QueryExecutorProvider, table: string): Promise<string[]>;
  };
  /**
   * Sets text column `column` of `table` to `to` in every row where it is `from` (tenancy's adoption of the records
   * made while it was off), moving the table's list generation on; answers how many rows changed. Where an UPDATE
   * writes a new version of each row (PostgreSQL), most of a table is rewritten instead, so that the table and its
   * indexes are not left half empty.
   */
  replaceInColumn(db: QueryExecutorProvider, table: string, column: string, from: string, to: string): Promise<number>;
  /**
   * Makes text column `column` of `table` compare byte by byte (tenancy's tenant column, compared at every index entry
   * a tenant's list walks); answers whether it changed anything. SQLite's texts do by default (BINARY); PostgreSQL's
   * follow the database's collation, whose comparison goes through the C library, unless the column says "C".
   */
  compareBytewise(db: QueryExecutorProvider, table: string, column: string): Promise<boolean>;
  /**
   * The plan of `query`, one step a line, outermost first (nothing is run but the EXPLAIN): what a plan test asserts
   * (restlayer/testing's queryPlan: an index walked, no scan, no sort).
   */
  queryPlan(db: QueryExecutorProvider, query: CompiledQuery): Promise<string[]>;
}
