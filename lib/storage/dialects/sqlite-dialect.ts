import { CompiledQuery, type RawBuilder, type SqlBool, sql } from 'kysely';
import { sqliteValues } from '../sql-values.js';
import { NEEDLESS_SKIP_SCANS, RELOAD_STATISTICS } from '../sqlite-statistics.js';
import type { StorageDialect } from './dialect.js';

/** The FTS5 table of `createFullTextIndex`. */
const fullTextTable = (table: string, column: string) => sql.table(`${table}_${column}_fts`);

/** The embedded store: one writer at a time, rowid tables, dates as ISO text and booleans as 0/1. */
export const sqliteDialect: StorageDialect = {
  ...sqliteValues,
  types: { date: 'text', bool: 'integer', number: 'real', bigId: 'integer', money: 'integer' },
  identity: (c) => c.primaryKey().autoIncrement(),
  // An autoincrement column numbers from the largest id it has seen, explicit ones included.
  syncIdentity: async () => {},
  altersColumnsInPlace: false,
  foldedText: (column) => sql`lower(${sql.ref(column)})`,
  nullsFirst: true,
  joinInOrder: sql`cross join`,
  locksRows: false,
  clusteredByKey: true,
  // bench/export.js, 100,000 orders: with 500 rows a page the cheap requests' p99 during / idle 0.5 and the later
  // exports' RSS growth 2-3 MB; with 100, 1.04 and 14-24 MB (more round trips to the readers, the export 7-8 s).
  exportPageRows: 500,
  tuneForLists: async () => {},
  async refreshStatistics(db) {
    await sql`analyze`.execute(db);
    // ANALYZE wrote sqlite_stat1 anew: mark the skip-scans no query needs again (lib/storage/sqlite-statistics.ts).
    const { numAffectedRows } = await sql.raw(NEEDLESS_SKIP_SCANS).execute(db);
    if (numAffectedRows) await sql.raw(RELOAD_STATISTICS).execute(db);
  },

  // One writer at a time: a write bumps the table's base row, per row written (SQLite's triggers run per row).
  async trackChanges(db, changes, table) {
    for (const event of ['insert', 'update', 'delete']) {
      await sql`create trigger ${sql.id(`${table}_list_change_${event}`)} after ${sql.raw(event)} on ${sql.table(table)}
        begin update ${sql.table(changes)} set generation = generation + 1 where table_name = ${sql.lit(table)}; end`.execute(db);
    }
  },

  /**
   * An FTS5 table with the trigram tokenizer over the column (external content, kept by triggers); the list asks it
   * for the rowids (`fullTextMatch`).
   */
  async createFullTextIndex(db, table, column, key) {
    const fts = fullTextTable(table, column);
    const [t, c, k] = [sql.table(table), sql.ref(column), sql.ref(key)];
    await sql`create virtual table ${fts} using fts5(${c}, content=${sql.lit(table)}, content_rowid=${sql.lit(key)}, tokenize='trigram')`.execute(db);
    const name = (event: string) => sql.id(`${table}_${column}_fts_${event}`);
    await sql`create trigger ${name('insert')} after insert on ${t} begin
      insert into ${fts} (rowid, ${c}) values (new.${k}, new.${c}); end`.execute(db);
    await sql`create trigger ${name('delete')} after delete on ${t} begin
      insert into ${fts} (${fts}, rowid, ${c}) values ('delete', old.${k}, old.${c}); end`.execute(db);
    await sql`create trigger ${name('update')} after update of ${c}, ${k} on ${t} begin
      insert into ${fts} (${fts}, rowid, ${c}) values ('delete', old.${k}, old.${c});
      insert into ${fts} (rowid, ${c}) values (new.${k}, new.${c}); end`.execute(db);
    await sql`insert into ${fts} (${fts}) values ('rebuild')`.execute(db);
  },

  /**
   * The rowids the trigram index finds, or undefined where it cannot: a text under three characters has no trigram,
   * and FTS5's LIKE takes no ESCAPE, so a text with LIKE's own characters in it is left to the plain LIKE. The index
   * folds case as the LIKE does (and more, beyond ASCII), so the list keeps its LIKE after it and the rows come out
   * the same, only found through the index.
   */
  async indexDefinitions(db, table) {
    // Indexes SQLite makes itself (a UNIQUE column's, the primary key's) have no statement: none of them is a list's.
    const { rows } = await sql<{ name: string; definition: string }>`select name, sql as definition from sqlite_master
      where type = 'index' and tbl_name = ${table} and sql is not null order by name`.execute(db);
    return rows;
  },

  fullTextMatch(table, column, ref, text): RawBuilder<SqlBool> | undefined {
    if ([...text].length < 3 || /[\\%_]/.test(text)) return undefined;
    const fts = fullTextTable(table, column);
    return sql<SqlBool>`${sql.ref(ref)} in (select rowid from ${fts} where ${sql.ref(column)} like ${`%${text}%`})`;
  },

  // A rowid table's UPDATE changes each row in place.
  async replaceInColumn(db, table, column, from, to) {
    const c = sql.ref(column);
    return Number((await sql`update ${sql.table(table)} set ${c} = ${to} where ${c} = ${from}`.execute(db)).numAffectedRows ?? 0n);
  },
  // BINARY, a byte comparison, is every text column's collation unless it names another (none of the layer's does).
  compareBytewise: async () => false,
  // EXPLAIN QUERY PLAN's details: `SEARCH <alias> USING INDEX <index> (…)`, `SCAN <alias>`.
  async queryPlan(db, query) {
    const { rows } = await db.getExecutor().executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]));
    return rows.map((r) => r.detail);
  },
};
