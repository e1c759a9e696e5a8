import { CompiledQuery, type QueryExecutorProvider, type RawBuilder, sql } from 'kysely';
import { postgresValues } from '../sql-values.js';
import type { StorageDialect } from './dialect.js';

/**
 * A writing transaction adds a row of its own to the change table (its id as `slot`, generation 1) instead of bumping
 * a shared one, so writers never wait on each other for it (a shared row, locked until COMMIT, would queue them and
 * could deadlock two transactions that also wait on each other's rows). About one transaction in this many folds the
 * committed rows into the table's base row (`slot` 0), skipping it when another is doing that.
 */
const FOLD_EVERY = 256;

/** A node of `explain (format json)`, what queryPlan reads of it. */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** The share of a table's rows from which replaceInColumn rewrites the table instead of updating them. */
const REWRITE_FROM = 0.25;

/**
 * Runs `statements` as one transaction on one connection of `db` (the setup lock's, or one a pool hands out): a start
 * that stops between them leaves each index as it was or as it is meant to be, never gone.
 */
async function inOneTransaction(db: QueryExecutorProvider, statements: RawBuilder<unknown>[]): Promise<void> {
  await db.getExecutor().provideConnection(async (connection) => {
    const run = (statement: RawBuilder<unknown>) => connection.executeQuery(statement.compile(db));
    await run(sql`begin`);
    try {
      for (const statement of statements) await run(statement);
      await run(sql`commit`);
    } catch (err) {
      await run(sql`rollback`).catch(() => undefined);
      throw err;
    }
  });
}

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
  // Text binds back as the column's own type (an untyped parameter takes it), every digit of a timestamp kept.
  exactValue: (column) => sql`${column}::text`,
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
    const { rows } = await sql<{ name: string; definition: string; note: string | null }>`select i.indexname as name, i.indexdef as definition,
      obj_description(format('%I.%I', i.schemaname, i.indexname)::regclass, 'pg_class') as note from pg_indexes as i
      where i.schemaname = current_schema() and i.tablename = ${table} order by i.indexname`.execute(db);
    return rows.map(({ note, ...index }) => (note === null ? index : { ...index, note }));
  },

  tenantLedInPlace: {
    replace: (db, name, by, note) => inOneTransaction(db, [
      sql`drop index ${sql.id(name)}`, sql`alter index ${sql.id(by)} rename to ${sql.id(name)}`,
      ...(note === undefined ? [] : [sql`comment on index ${sql.id(name)} is ${sql.lit(note)}`]),
    ]),
    putBeside: (db, name, by, twin) => inOneTransaction(db, [
      sql`alter index ${sql.id(name)} rename to ${sql.id(twin)}`, sql`comment on index ${sql.id(twin)} is null`,
      sql`alter index ${sql.id(by)} rename to ${sql.id(name)}`,
    ]),
    async foreignKeyColumns(db, table) {
      const { rows } = await sql<{ column: string }>`select a.attname as column from pg_constraint as c
        join pg_attribute as a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
        where c.contype = 'f' and cardinality(c.conkey) = 1 and c.conrelid = format('%I.%I', current_schema(), ${table}::text)::regclass
        order by 1`.execute(db);
      return rows.map((r) => r.column);
    },
  },

  /**
   * An UPDATE writes a new version of each row it changes: at a million orders adopting the whole table left it twice
   * its size, half of it empty, and every index of it 1.5 to 3 times (sales_order_pkey 2,766 → 5,530 pages,
   * ix_sales_order_list_key 3,878 → 11,597); VACUUM frees the old versions but shrinks nothing, and every list read
   * the bloated key indexes and pages for as long as the table lived. From REWRITE_FROM of the rows on, the column is
   * changed by rewriting the table instead (ALTER COLUMN … TYPE … USING, its own type again), which writes each row
   * once and builds every index anew. It holds the table exclusively meanwhile, which the UPDATE of every row nearly
   * did too (it locked every row); a few rows keep the UPDATE.
   */
  async replaceInColumn(db, table, column, from, to) {
    const [t, c] = [sql.table(table), sql.ref(column)];
    const update = async () => Number((await sql`update ${t} set ${c} = ${to} where ${c} = ${from}`.execute(db)).numAffectedRows ?? 0n);
    // At every start with tenancy on: once adopted, the tenant-led indexes answer this without reading the table.
    const { rows: any } = await sql<{ one: number }>`select 1 as one from ${t} where ${c} = ${from} limit 1`.execute(db);
    if (!any.length) return 0;
    const { rows } = await sql<{ matching: string; total: string }>`select count(*) filter (where ${c} = ${from}) as matching,
      count(*) as total from ${t}`.execute(db);
    const matching = Number(rows[0].matching);
    if (matching < Number(rows[0].total) * REWRITE_FROM) return update();
    const { type, collation } = await columnType(db, table, column);
    // DDL takes no parameters: the values as literals (sql.lit doubles their quotes). The collation is named again:
    // ALTER … TYPE without one gives the column its type's default.
    await sql`alter table ${t} alter column ${c} type ${sql.raw(type)} collate ${sql.id(collation)}
      using (case when ${c} = ${sql.lit(from)} then ${sql.lit(to)} else ${c} end)`.execute(db);
    // A rewrite fires no trigger: the statement-level one of an UPDATE of no row moves the table's list generation on,
    // so that counts kept by other processes (lib/storage/count-cache.ts) are read again.
    await sql`update ${t} set ${c} = ${c} where false`.execute(db);
    return matching;
  },
  /**
   * A tenant's list compares its tenant at every entry it walks; under the database's collation (C.UTF-8 here, a
   * language's elsewhere) each comparison goes through the C library, under "C" it is a memcmp. At a million customers
   * a page near the end (an offset of 100,749) took 8.4 ms with the tenant led index under C.UTF-8, 6.6 under "C", 5.2
   * without tenancy. The column's indexes are built again (its rows are not rewritten: the type stays text). A
   * database made with collation C or POSIX compares bytes already.
   */
  async compareBytewise(db, table, column) {
    const { type, effective } = await columnType(db, table, column);
    if (BYTEWISE.has(effective)) return false;
    await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} type ${sql.raw(type)} collate "C"`.execute(db);
    return true;
  },
  // `explain (format json)`'s nodes, each its type with its relation and index: `Index Scan on <table> using <index>`.
  async queryPlan(db, query) {
    const { rows } = await db.getExecutor().executeQuery<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
      CompiledQuery.raw(`explain (format json) ${query.sql}`, [...query.parameters]));
    const steps: string[] = [];
    const walk = (node: PlanNode) => {
      steps.push([node['Node Type'], node['Relation Name'] && `on ${node['Relation Name']}`, node['Index Name'] && `using ${node['Index Name']}`].filter(Boolean).join(' '));
      for (const child of node.Plans ?? []) walk(child);
    };
    walk(rows[0]['QUERY PLAN'][0].Plan);
    return steps;
  },
};

/** The collations whose comparison is a memcmp. */
const BYTEWISE = new Set(['C', 'POSIX']);

/**
 * A column's type as DDL spells it (`text`, `varchar(25)`), its collation's name, and the collation that name means
 * (`default`: the database's).
 */
async function columnType(db: QueryExecutorProvider, table: string, column: string): Promise<{ type: string; collation: string; effective: string }> {
  const { rows } = await sql<{ type: string; collation: string; effective: string }>`select format_type(a.atttypid, a.atttypmod) as type,
      c.collname as collation,
      case when c.collname = 'default' then (select datcollate from pg_database where datname = current_database()) else c.collname end as effective
    from pg_attribute a join pg_collation c on c.oid = a.attcollation where a.attrelid = ${table}::regclass and a.attname = ${column}`.execute(db);
  if (!rows[0]) throw new Error(`${table}.${column}: no such text column`);
  return rows[0];
}
