import { type Kysely, sql } from 'kysely';
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
    /** Replaces an index made before indexes ended with the key; SQLite's always did, so it stays. */
    async rekeyListIndex(name: string, ...columns: string[]) {
      if (values.provider !== 'postgres') return;
      await db.schema.dropIndex(name).execute();
      await createListIndex(name, ...columns);
    },
  };
}
