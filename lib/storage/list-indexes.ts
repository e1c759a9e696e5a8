import { type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import { foldedText } from './criteria-sql.js';
import type { SqlValues } from './sql-values.js';

/**
 * Index makers for the lists of one table (lib/storage/list-query.ts reads a page's keys from these indexes). Each index
 * ends with the table's key: SQLite does that itself, PostgreSQL needs it named, so that a page's keys come from the
 * index alone (an index-only scan), in the order the list's tie-break asks for.
 */
export function listIndexes(db: Kysely<unknown>, values: SqlValues, table: string, id: string) {
  const keyed = (columns: string[]) => (values.provider === 'postgres' ? [...columns, id] : columns);
  const createListIndex = async (name: string, ...columns: string[]) => {
    await db.schema.createIndex(name).on(table).columns(keyed(columns)).execute();
  };
  return {
    createListIndex,
    /**
     * An index on a text column's folded form, exactly as criterion SW compares it: a prefix filter reads a range of it.
     * PostgreSQL's holds the text itself too, so the exact LIKE after the range is checked without reading rows.
     */
    async createFoldedIndex(name: string, column: string) {
      const rest = values.provider === 'postgres' ? sql`, ${sql.ref(id)}) include (${sql.ref(column)}` : sql``;
      await sql`create index ${sql.id(name)} on ${sql.table(table)} (${foldedText(column, values)}${rest})`.execute(db);
    },
    /**
     * PostgreSQL: an index of `column` alone, for exact counts of its values. Without the key its equal entries share
     * one deduplicated posting list, so a count of most of the table reads a small index (an index-only scan, while
     * the visibility map is fresh: see `vacuumSoon`). SQLite's indexes all end with the rowid: nothing to gain.
     */
    async createCountIndex(name: string, column: string) {
      if (values.provider === 'postgres') await db.schema.createIndex(name).on(table).column(column).execute();
    },
    /**
     * PostgreSQL: autovacuum visits the table after 1 % of its rows changed (not the default 20 %), so the visibility
     * map stays fresh and index-only scans (keys, counts) seldom read the rows themselves.
     */
    async vacuumSoon() {
      if (values.provider !== 'postgres') return;
      await sql`alter table ${sql.table(table)} set (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_analyze_scale_factor = 0.02)`.execute(db);
    },
    /**
     * SQLite: an index of the key alone, for pages with no filter in key order. The table is a b-tree of whole rows, so
     * an offset walked on it reads every row it skips; this index holds only the keys, a fourteenth of the pages at a
     * million orders. PostgreSQL's primary key is such an index already (its rows live apart, in the heap): those pages
     * are index-only scans of it, and another index would only cost writes.
     */
    async createKeyIndex(name: string) {
      if (values.provider === 'sqlite') await db.schema.createIndex(name).on(table).column(id).execute();
    },
    /**
     * A trigram index of a text column, for criterion CN (contains) on it: an unanchored LIKE cannot use a b-tree, so
     * without it every CN reads every row. SQLite: an FTS5 table with the trigram tokenizer over the column (external
     * content, kept by triggers; the list asks it for the rowids, see `fullTextMatch`). PostgreSQL: a GIN index of
     * pg_trgm on the folded text, which serves the list's own `lower(column) like ...` as it is; where the server
     * lacks the pg_trgm extension, nothing is made and CN keeps reading the rows.
     */
    async createFullTextIndex(column: string) {
      if (values.provider === 'postgres') {
        const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_available_extensions where name = 'pg_trgm'`.execute(db);
        if (!rows[0].n) return;
        await sql`create extension if not exists pg_trgm`.execute(db);
        await sql`create index ${sql.id(`ix_${table}_${column}_trigram`)} on ${sql.table(table)} using gin (lower(${sql.ref(column)}) gin_trgm_ops)`.execute(db);
        return;
      }
      const fts = fullTextTable(table, column);
      const [t, c, k] = [sql.table(table), sql.ref(column), sql.ref(id)];
      await sql`create virtual table ${fts} using fts5(${c}, content=${sql.lit(table)}, content_rowid=${sql.lit(id)}, tokenize='trigram')`.execute(db);
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
    /** Replaces an index made before indexes ended with the key; SQLite's always did, so it stays. */
    async rekeyListIndex(name: string, ...columns: string[]) {
      if (values.provider !== 'postgres') return;
      await db.schema.dropIndex(name).execute();
      await createListIndex(name, ...columns);
    },
  };
}

/** The FTS5 table of `createFullTextIndex` (SQLite). */
const fullTextTable = (table: string, column: string) => sql.table(`${table}_${column}_fts`);

/**
 * SQLite: the condition that `key` (the table's rowid) is one whose `column` contains `text`, as the trigram index of
 * `createFullTextIndex` finds it, or undefined where that index cannot: a text under three characters has no trigram,
 * and FTS5's LIKE takes no ESCAPE, so a text with LIKE's own characters in it is left to the plain LIKE. The index
 * folds case as the LIKE does (and more, beyond ASCII), so the list keeps its LIKE after it and the rows come out the
 * same, only found through the index.
 */
export function fullTextMatch(table: string, column: string, key: string, text: string): RawBuilder<SqlBool> | undefined {
  if ([...text].length < 3 || /[\\%_]/.test(text)) return undefined;
  const fts = fullTextTable(table, column);
  return sql<SqlBool>`${sql.ref(key)} in (select rowid from ${fts} where ${sql.ref(column)} like ${`%${text}%`})`;
}
