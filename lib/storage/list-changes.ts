import { type Kysely, type QueryExecutorProvider, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { StorageDialect } from './dialects/dialect.js';

/**
 * The change generation of listed tables, kept in the database so that every instance sees the same one: triggers
 * bump it on every insert, update or delete (whoever writes: a service, a CLI, a psql session), in the writer's own
 * transaction, so a reader sees a table's rows and its generation from the same snapshot. lib/storage/count-cache.ts
 * keys exact counts by it.
 */
export const LIST_CHANGE_TABLE = 'restlayer_list_change';

/**
 * Creates the generation table where it is missing: the first trackListChanges, and every start (lib/storage/open-storage.ts),
 * since record ETags read it (lib/resources/runtime/version-tag.ts) also where no migration tracks a table yet.
 */
export async function createListChangeTable(db: QueryExecutorProvider): Promise<void> {
  await sql`create table if not exists ${sql.table(LIST_CHANGE_TABLE)} (table_name varchar(128) not null, slot bigint not null,
    generation bigint not null default 0, primary key (table_name, slot))`.execute(db);
}

/** Makes `table`'s writes bump its generation (a migration step; creates the generation table the first time). */
export async function trackListChanges(db: Kysely<unknown>, dialect: StorageDialect, table: string): Promise<void> {
  const changes = sql.table(LIST_CHANGE_TABLE);
  await createListChangeTable(db);
  await sql`insert into ${changes} (table_name, slot) values (${table}, 0) on conflict do nothing`.execute(db);
  await dialect.trackChanges(db, LIST_CHANGE_TABLE, table);
}

/**
 * The generation of `tables` together, as one value for a select list: null when one of them is not tracked (no
 * trigger bumps it, so nothing read from it may be cached). Every committed write raises the sum, and a snapshot
 * sees the writes committed before it, so two snapshots with the same sum see the same rows.
 */
export function generationOf(tables: readonly string[], readBudget: readonly RawBuilder<SqlBool>[] = []): RawBuilder<string | number | null> {
  const budget = sql.join(readBudget.map((term) => sql` and ${term}`), sql``);
  // The names are literals, not parameters: SQLite (built with STAT4, as better-sqlite3 is) prepares a statement
  // again each time a parameter compared with an analysed index is bound, and every run binds them (a write's read
  // of its record with its ETag's versions took 23 µs instead of 5, 82 instead of 15 under load). They are table
  // names of declarations and migrations, never a caller's text.
  const names = tables.map((table) => sql.lit(table));
  // One table: the sum of its slots, null when it has none. Counting distinct names costs SQLite a temporary b-tree
  // on every run (a third of a write's read of its record with its ETag's versions).
  if (tables.length === 1) return sql`(select sum(g.generation) from ${sql.table(LIST_CHANGE_TABLE)} as g where g.table_name = ${names[0]}${budget})`;
  return sql`(select case when count(distinct g.table_name) = ${sql.lit(tables.length)} then sum(g.generation) end
    from ${sql.table(LIST_CHANGE_TABLE)} as g where g.table_name in (${sql.join(names)})${budget})`;
}
