import { type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { SqlValues } from './sql-values.js';

/**
 * The change generation of listed tables, kept in the database so that every instance sees the same one: triggers
 * bump it on every insert, update or delete (whoever writes: a service, a CLI, a psql session), in the writer's own
 * transaction, so a reader sees a table's rows and its generation from the same snapshot. lib/storage/count-cache.ts
 * keys exact counts by it.
 */
export const LIST_CHANGE_TABLE = 'restlayer_list_change';

/**
 * PostgreSQL: a writing transaction adds a row of its own (its id as `slot`, generation 1) instead of bumping a shared
 * one, so writers never wait on each other for it (a shared row, locked until COMMIT, would queue them and could
 * deadlock two transactions that also wait on each other's rows). About one transaction in this many folds the
 * committed rows into the table's base row (`slot` 0), skipping it when another is doing that.
 */
const PG_FOLD_EVERY = 256;

/** Makes `table`'s writes bump its generation (a migration step; creates the generation table the first time). */
export async function trackListChanges(db: Kysely<unknown>, values: SqlValues, table: string): Promise<void> {
  const changes = sql.table(LIST_CHANGE_TABLE);
  await sql`create table if not exists ${changes} (table_name varchar(128) not null, slot bigint not null,
    generation bigint not null default 0, primary key (table_name, slot))`.execute(db);
  await sql`insert into ${changes} (table_name, slot) values (${table}, 0) on conflict do nothing`.execute(db);
  if (values.provider === 'postgres') {
    // Runs once per statement, however many rows it touches (TRUNCATE too); adds one row per transaction. The fold is
    // one statement: a snapshot sees the committed rows either before it or in the base after it, with the same sum.
    await sql`create or replace function restlayer_list_change_bump() returns trigger language plpgsql as $$
      begin
        insert into ${changes} (table_name, slot, generation) values (TG_TABLE_NAME, txid_current(), 1) on conflict do nothing;
        if txid_current() % ${sql.lit(PG_FOLD_EVERY)} = 0 then
          with base as (
            select ctid from ${changes} where table_name = TG_TABLE_NAME and slot = 0 for update skip locked
          ), folded as (
            delete from ${changes} g where g.table_name = TG_TABLE_NAME and g.slot <> 0 and exists (select from base)
            returning g.generation
          )
          update ${changes} set generation = generation + (select coalesce(sum(generation), 0) from folded)
            where ctid in (select ctid from base);
        end if;
        return null;
      end $$`.execute(db);
    await sql`create trigger ${sql.id(`${table}_list_change`)} after insert or update or delete or truncate on ${sql.table(table)}
      for each statement execute function restlayer_list_change_bump()`.execute(db);
    return;
  }
  // SQLite has one writer at a time: it bumps the base row, per row written (its triggers run per row).
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
export function generationOf(tables: readonly string[], readBudget: readonly RawBuilder<SqlBool>[] = []): RawBuilder<string | number | null> {
  const names = sql.join(tables);
  const budget = sql.join(readBudget.map((term) => sql` and ${term}`), sql``);
  return sql`(select case when count(distinct g.table_name) = ${tables.length} then sum(g.generation) end
    from ${sql.table(LIST_CHANGE_TABLE)} as g where g.table_name in (${names})${budget})`;
}
