import type Database from 'better-sqlite3';

/**
 * Turns off SQLite's skip-scan on each index whose second column leads another index of the same table. A skip-scan
 * reads an index (status, order_date) as one range per status when a query constrains only order_date; SQLite's
 * statistics make it look cheap when the first column has few values, and the planner then prefers it even where an
 * index that starts with order_date exists — one that may also cover the query. At a million orders, a month's
 * orders by amount took 40 ms that way (each row fetched for its total) and 1.8 ms through (order_date, total_due).
 * Where no index starts with that column, skip-scan stays: it is then the only way to seek. `noskipscan` in
 * sqlite_stat1 is SQLite's documented switch; ANALYZE rewrites the table, so this runs after every ANALYZE or
 * `PRAGMA optimize`, and `ANALYZE sqlite_schema` makes the connection read the statistics again.
 */
export function avoidNeedlessSkipScans(database: Database.Database): void {
  if (database.readonly) return;
  const hasStatistics = database.prepare("select 1 from sqlite_master where type = 'table' and name = 'sqlite_stat1'").get();
  if (!hasStatistics) return;
  if (database.prepare(NEEDLESS_SKIP_SCANS).run().changes > 0) database.exec(RELOAD_STATISTICS);
}

/**
 * The statement of avoidNeedlessSkipScans, for a connection reached through Kysely (sqlite_stat1 must exist). Also every
 * tenant-led twin of an index (lib/storage/tenant-indexes.ts, `ix_…_tenant`): its twin without the tenant always
 * exists, and the statements that want it are those of tenancy off, where skipping over tenants only costs (a twin
 * led by one tenant holding every row was taken for a range its own index serves, and with a sort: 100× slower). The
 * column after the tenant may be an expression (`lower(name)`), which the first rule cannot compare.
 */
export const NEEDLESS_SKIP_SCANS = `update sqlite_stat1 set stat = stat || ' noskipscan'
  where stat not like '%noskipscan%' and (idx like '%\\_tenant' escape '\\' or idx in (
    select i.name from sqlite_master as i join pragma_index_info(i.name) as second on second.seqno = 1
    where i.type = 'index' and exists (
      select 1 from sqlite_master as j join pragma_index_info(j.name) as first on first.seqno = 0
      where j.type = 'index' and j.tbl_name = i.tbl_name and j.name <> i.name and first.name = second.name)))`;

/** Makes the connection read sqlite_stat1 again. */
export const RELOAD_STATISTICS = 'analyze sqlite_schema';
