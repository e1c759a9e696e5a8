import type { CompiledQuery } from 'kysely';
import type { Storage } from '../storage/storage.js';

/**
 * The plan of `query` on `storage` (a test server's, `server.infrastructure.storage`), one step a line, as its dialect
 * reads it: SQLite's EXPLAIN QUERY PLAN details (`SEARCH <alias> USING INDEX <index> (…)`, `SCAN <alias>`),
 * PostgreSQL's node types with their relation and index, outermost first (`Index Scan on <table> using <index>`,
 * `Sort`). Nothing is run but the EXPLAIN. A plan test asserts what the speed of a list or history page depends on (an
 * index walked, no scan, no sort), e.g. of `listSql(customer.list, …)`'s `keys.compile(storage.db)`.
 */
export function queryPlan(storage: Pick<Storage, 'db' | 'dialect'>, query: CompiledQuery): Promise<string[]> {
  return storage.dialect.queryPlan(storage.db, query);
}
