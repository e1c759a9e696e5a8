import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { SqlValues } from './sql-values.js';

/**
 * The change generation of listed tables, kept in the database so that every instance sees the same one: triggers
 * bump it on every insert, update or delete (whoever writes: a service, a CLI, a psql session), in the writer's own
 * transaction, so a reader sees a table's rows and its generation from the same snapshot. lib/storage/count-cache.ts
 * keys exact counts by it.
 */
export const LIST_CHANGE_TABLE = 'restlayer_list_change';

/**
 * PostgreSQL spreads a table's generation over this many rows, picked by the writer's backend: a statement's bump
 * holds its row until COMMIT, so one row would queue every concurrent writer of the table behind the others.
 * SQLite has one writer at a time and one row per table.
 */
const PG_SLOTS = 8;

/** Makes `table`'s writes bump its generation (a migration step; creates the generation table the first time). */
export async function trackListChanges(db: Kysely<unknown>, values: SqlValues, table: string): Promise<void> {
  const changes = sql.table(LIST_CHANGE_TABLE);
  await sql`create table if not exists ${changes} (table_name varchar(128) not null, slot integer not null,
    generation bigint not null default 0, primary key (table_name, slot))`.execute(db);
  if (values.provider === 'postgres') {
    await sql`insert into ${changes} (table_name, slot) select ${table}, s from generate_series(0, ${sql.lit(PG_SLOTS - 1)}) s
      on conflict do nothing`.execute(db);
    // One bump per statement, however many rows it touches; TRUNCATE too.
    await sql`create or replace function restlayer_list_change_bump() returns trigger language plpgsql as $$
      begin
        update ${changes} set generation = generation + 1
          where table_name = TG_TABLE_NAME and slot = pg_backend_pid() % ${sql.lit(PG_SLOTS)};
        return null;
      end $$`.execute(db);
    await sql`create trigger ${sql.id(`${table}_list_change`)} after insert or update or delete or truncate on ${sql.table(table)}
      for each statement execute function restlayer_list_change_bump()`.execute(db);
    return;
  }
  await sql`insert or ignore into ${changes} (table_name, slot) values (${table}, 0)`.execute(db);
  // SQLite triggers run per row: a bulk insert pays one small update per row.
  for (const event of ['insert', 'update', 'delete']) {
    await sql`create trigger ${sql.id(`${table}_list_change_${event}`)} after ${sql.raw(event)} on ${sql.table(table)}
      begin update ${changes} set generation = generation + 1 where table_name = ${sql.lit(table)}; end`.execute(db);
  }
}

/**
 * The generation of `tables` together, as one value for a select list: null when one of them is not tracked (no
 * trigger bumps it, so nothing read from it may be cached). Every committed write raises the sum, and a snapshot
 * sees the writes committed before it, so two snapshots with the same sum see the same rows.
 */
export function generationOf(tables: readonly string[]): RawBuilder<string | number | null> {
  const names = sql.join(tables);
  return sql`(select case when count(distinct g.table_name) = ${tables.length} then sum(g.generation) end
    from ${sql.table(LIST_CHANGE_TABLE)} as g where g.table_name in (${names}))`;
}
