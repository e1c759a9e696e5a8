import { sql } from 'kysely';
import { postgresValues } from '../sql-values.js';
import type { StorageDialect } from './dialect.js';

/**
 * A writing transaction adds a row of its own to the change table (its id as `slot`, generation 1) instead of bumping
 * a shared one, so writers never wait on each other for it (a shared row, locked until COMMIT, would queue them and
 * could deadlock two transactions that also wait on each other's rows). About one transaction in this many folds the
 * committed rows into the table's base row (`slot` 0), skipping it when another is doing that.
 */
const FOLD_EVERY = 256;

/** The scale-out store: concurrent writers, heap tables, native dates and booleans. */
export const postgresDialect: StorageDialect = {
  ...postgresValues,
  types: { date: 'timestamptz', bool: 'boolean', number: 'double precision', bigId: 'bigint', money: 'numeric(15, 4)' },
  identity: (c) => c.primaryKey().generatedByDefaultAsIdentity(),
  // Explicit ids bypass the identity's sequence; it moves past them. NULL (a no-op) where the column has no sequence.
  async syncIdentity(db, table, column) {
    await sql`select setval(pg_get_serial_sequence(${table}, ${column}), coalesce(max(${sql.ref(column)}), 0) + 1, false)
      from ${sql.table(table)}`.execute(db);
  },
  altersColumnsInPlace: true,
  // The "C" collation orders by code point, where a prefix's range holds exactly the texts that start with it.
  foldedText: (column) => sql`lower(${sql.ref(column)}) collate "C"`,
  nullsFirst: false,
  joinInOrder: sql`join`,
  locksRows: true,
  clusteredByKey: false,
  // bench/export.js, 100,000 orders, 4 clients of cheap requests: their p99 during / idle 1.24-1.28 with 100 rows a
  // page (the export 7.3 s), 1.75 with 200 (4.8 s), 3.15 with 500 (4 s).
  exportPageRows: 100,

  /**
   * Autovacuum visits the table after 1 % of its rows changed (not the default 20 %), so the visibility map stays
   * fresh and index-only scans (keys, counts) seldom read the rows themselves.
   */
  async tuneForLists(db, table) {
    await sql`alter table ${sql.table(table)} set (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_analyze_scale_factor = 0.02)`.execute(db);
  },
  // VACUUM also marks the pages all-visible, which index-only scans need (autovacuum would, later).
  async refreshStatistics(db) {
    await sql`vacuum analyze`.execute(db);
  },

  /**
   * The trigger runs once per statement, however many rows it touches (TRUNCATE too); adds one row per transaction.
   * The fold is one statement: a snapshot sees the committed rows either before it or in the base after it, with the
   * same sum.
   */
  async trackChanges(db, changeTable, table) {
    const changes = sql.table(changeTable);
    await sql`create or replace function restlayer_list_change_bump() returns trigger language plpgsql as $$
      begin
        insert into ${changes} (table_name, slot, generation) values (TG_TABLE_NAME, txid_current(), 1) on conflict do nothing;
        if txid_current() % ${sql.lit(FOLD_EVERY)} = 0 then
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
  },

  /**
   * A GIN index of pg_trgm on the folded text, which serves the list's own `lower(column) like ...` as it is; where
   * the server lacks the pg_trgm extension, nothing is made and CN keeps reading the rows.
   */
  async createFullTextIndex(db, table, column) {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_available_extensions where name = 'pg_trgm'`.execute(db);
    if (!rows[0].n) return;
    await sql`create extension if not exists pg_trgm`.execute(db);
    await sql`create index ${sql.id(`ix_${table}_${column}_trigram`)} on ${sql.table(table)} using gin (lower(${sql.ref(column)}) gin_trgm_ops)`.execute(db);
  },
  // The trigram index serves the LIKE itself.
  fullTextMatch: () => undefined,

  async indexDefinitions(db, table) {
    const { rows } = await sql<{ name: string; definition: string }>`select indexname as name, indexdef as definition from pg_indexes
      where schemaname = current_schema() and tablename = ${table} order by indexname`.execute(db);
    return rows;
  },
};
