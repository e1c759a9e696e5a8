import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { StorageDialect } from './dialects/dialect.js';

/**
 * Index makers for the lists of one table (lib/storage/list-query.ts reads a page's keys from these indexes). Each index
 * ends with the table's key: a table clustered by its key does that itself, others need it named (the dialect's
 * `clusteredByKey`), so that a page's keys come from the index alone (an index-only scan), in the order the list's
 * tie-break asks for.
 */
export function listIndexes(db: Kysely<unknown>, dialect: StorageDialect, table: string, id: string) {
  const { clusteredByKey } = dialect;
  const keyed = (columns: string[]) => (clusteredByKey ? columns : [...columns, id]);
  const createListIndex = async (name: string, ...columns: string[]) => {
    await db.schema.createIndex(name).on(table).columns(keyed(columns)).execute();
  };
  return {
    createListIndex,
    /**
     * An index on a text column's folded form, exactly as criterion SW compares it: a prefix filter reads a range of it.
     * Where indexes name the key (PostgreSQL), it holds the text itself too, so the exact LIKE after the range is
     * checked without reading rows.
     */
    async createFoldedIndex(name: string, column: string) {
      const rest = clusteredByKey ? sql`` : sql`, ${sql.ref(id)}) include (${sql.ref(column)}`;
      await sql`create index ${sql.id(name)} on ${sql.table(table)} (${dialect.foldedText(column)}${rest})`.execute(db);
    },
    /**
     * An index of `column` alone, for exact counts of its values, where indexes do not end with the key by themselves
     * (PostgreSQL): without the key its equal entries share one deduplicated posting list, so a count of most of the
     * table reads a small index (an index-only scan, while the visibility map is fresh: see `vacuumSoon`). SQLite's
     * indexes all end with the rowid: nothing to gain.
     */
    async createCountIndex(name: string, column: string) {
      if (!clusteredByKey) await db.schema.createIndex(name).on(table).column(column).execute();
    },
    /** Keeps the table's statistics fresh for index-only reads (the dialect's `tuneForLists`). */
    async vacuumSoon() {
      await dialect.tuneForLists(db, table);
    },
    /**
     * An index of the key alone, for pages with no filter in key order, where the table is a b-tree of whole rows
     * (SQLite): an offset walked on it reads every row it skips; this index holds only the keys, a fourteenth of the
     * pages at a million orders. PostgreSQL's primary key is such an index already (its rows live apart, in the
     * heap): those pages are index-only scans of it, and another index would only cost writes.
     */
    async createKeyIndex(name: string) {
      if (clusteredByKey) await db.schema.createIndex(name).on(table).column(id).execute();
    },
    /**
     * A trigram index of a text column, for criterion CN (contains) on it: an unanchored LIKE cannot use a b-tree, so
     * without it every CN reads every row (the dialect's `createFullTextIndex` says what it makes).
     */
    async createFullTextIndex(column: string) {
      await dialect.createFullTextIndex(db, table, column, id);
    },
    /**
     * Replaces list index `name` by one of `columns` that also holds the soft-delete column `live` (`deleted_at`), so
     * a list that skips deleted records answers that from the index instead of reading each row it walks
     * (docs/soft-delete.md). SQLite has no included columns: `live` becomes a key column at `at`, after the columns
     * lists compare with = and before those they sort or seek by. SQLite takes `deleted_at IS NULL` as one more
     * equality, so the index still gives its rows in the order of the columns after it; after a sorted column it
     * would not (its ties would come by deleted_at). PostgreSQL includes it (`include`): the key, the order and the
     * index's other uses stay, and an index-only scan tests it. `where`: a partial index's condition.
     */
    async replaceHoldingLive(name: string, live: string, columns: string[], at = columns.length, where?: RawBuilder<boolean>) {
      await db.schema.dropIndex(name).ifExists().execute();
      const key = clusteredByKey ? [...columns.slice(0, at), live, ...columns.slice(at)] : [...columns, id];
      const include = clusteredByKey ? sql`` : sql` include (${sql.ref(live)})`;
      await sql`create index ${sql.id(name)} on ${sql.table(table)} (${sql.join(key.map((c) => sql.ref(c)))})${include}${where ? sql` where ${where}` : sql``}`.execute(db);
    },
    /**
     * An index of `columns` anew, including the soft-delete column `live` where the store has included columns
     * (PostgreSQL, as `replaceHoldingLive` does). SQLite's stays as it was: for an index whose lists sort by its
     * first column there is no place for `live` that keeps both that order and the index's other uses.
     */
    async includeLive(name: string, live: string, columns: string[]) {
      if (clusteredByKey) return;
      await db.schema.dropIndex(name).ifExists().execute();
      await sql`create index ${sql.id(name)} on ${sql.table(table)} (${sql.join(keyed(columns).map((c) => sql.ref(c)))}) include (${sql.ref(live)})`.execute(db);
    },
    /** `createFoldedIndex`'s index anew, also holding the soft-delete column `live` (as `replaceHoldingLive`'s do). */
    async replaceFoldedHoldingLive(name: string, column: string, live: string) {
      await db.schema.dropIndex(name).ifExists().execute();
      const rest = clusteredByKey ? sql`, ${sql.ref(live)}` : sql`, ${sql.ref(id)}) include (${sql.ref(column)}, ${sql.ref(live)}`;
      await sql`create index ${sql.id(name)} on ${sql.table(table)} (${dialect.foldedText(column)}${rest})`.execute(db);
    },
    /**
     * `createKeyIndex`'s index anew, also holding the soft-delete column `live`: a deep page with no filter walks it
     * alone. PostgreSQL gets one too now (the key, including `live`): its primary key would send each key to the row.
     */
    async replaceKeyHoldingLive(name: string, live: string) {
      await db.schema.dropIndex(name).ifExists().execute();
      const columns = clusteredByKey ? sql`${sql.ref(id)}, ${sql.ref(live)})` : sql`${sql.ref(id)}) include (${sql.ref(live)})`;
      await sql`create index ${sql.id(name)} on ${sql.table(table)} (${columns}`.execute(db);
    },
    /**
     * `createCountIndex`'s index anew, of the records not deleted only (partial on `live IS NULL`): an included column
     * would end its deduplication, and the count of the deleted view is the deleted records' index's.
     */
    async replaceCountOfLive(name: string, column: string, live: string) {
      if (clusteredByKey) return;
      await db.schema.dropIndex(name).ifExists().execute();
      await db.schema.createIndex(name).on(table).column(column).where(sql.ref(live), 'is', null).execute();
    },
    /**
     * An index of the deleted records alone (partial on `live IS NOT NULL`): the deleted view's lists and purge's
     * `deleted_at < ?` read it instead of every row; it holds only what was deleted and not yet purged.
     */
    async createDeletedIndex(name: string, live: string) {
      await db.schema.createIndex(name).on(table).columns(keyed([live])).where(sql.ref(live), 'is not', null).execute();
    },
    /** Replaces an index made before indexes ended with the key; where they always did (clustered tables), it stays. */
    async rekeyListIndex(name: string, ...columns: string[]) {
      if (clusteredByKey) return;
      await db.schema.dropIndex(name).execute();
      await createListIndex(name, ...columns);
    },
  };
}
