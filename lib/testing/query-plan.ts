import { CompiledQuery } from 'kysely';
import type { Storage } from '../storage/storage.js';
import { testProvider } from './test-stores.js';

/** A node of PostgreSQL's `explain (format json)`, what queryPlan reads of it. */
interface PgNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PgNode[];
}

/**
 * The plan of `query` on `storage` (a test server's, `server.infrastructure.storage`), one step a line: SQLite's
 * EXPLAIN QUERY PLAN details (`SEARCH <alias> USING INDEX <index> (…)`, `SCAN <alias>`), PostgreSQL's node types
 * with their relation and index, outermost first (`Index Scan on <table> using <index>`, `Sort`). Nothing is run but the
 * EXPLAIN. A plan test asserts what the speed of a list or history page depends on (an index walked, no scan, no
 * sort), e.g. of `listSql(customer.list, …)`'s `keys.compile(storage.db)`. Which EXPLAIN is asked follows the store
 * of the test run (`testProvider`), the store test servers open.
 */
export async function queryPlan(storage: Pick<Storage, 'db'>, query: CompiledQuery): Promise<string[]> {
  const { db } = storage;
  if (testProvider === 'postgres') {
    const { rows } = await db.executeQuery<{ 'QUERY PLAN': { Plan: PgNode }[] }>(CompiledQuery.raw(`explain (format json) ${query.sql}`, [...query.parameters]));
    const steps: string[] = [];
    const walk = (node: PgNode) => {
      steps.push([node['Node Type'], node['Relation Name'] && `on ${node['Relation Name']}`, node['Index Name'] && `using ${node['Index Name']}`].filter(Boolean).join(' '));
      for (const child of node.Plans ?? []) walk(child);
    };
    walk(rows[0]['QUERY PLAN'][0].Plan);
    return steps;
  }
  const { rows } = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]));
  return rows.map((r) => r.detail);
}
