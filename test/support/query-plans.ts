import { CompiledQuery, type Kysely } from 'kysely';
import { testProvider } from './test-stores.js';

interface PgNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PgNode[];
}

/**
 * One plan's steps, as text: SQLite's EXPLAIN QUERY PLAN details, PostgreSQL's node types with their relation and
 * index. Plan tests assert what the speed of a list or history page depends on (an index walked, no scan, no sort).
 */
export async function planOf(db: Kysely<unknown>, query: CompiledQuery): Promise<string[]> {
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
