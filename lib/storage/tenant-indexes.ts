import { type QueryExecutorProvider, sql } from 'kysely';
import type { StorageDialect } from './dialects/dialect.js';

/** The suffix of an index made from another by leading it with the tenant column. */
const SUFFIX = '_tenant';
/** PostgreSQL cuts identifiers at 63 bytes: a derived name must stay unique within that. */
const MAX_NAME = 63;

/**
 * The statement of the tenant-led twin of an index (`create index ix_x on t (a, b) …` → `create index ix_x_tenant on
 * t (tenant_id, a, b) …`, the rest — INCLUDE, WHERE, expressions — as it was), or undefined for an index that has
 * none: a unique one (it keeps its own rule; a tenant's uniqueness is the declaration's, made by its migration), one
 * that is not a b-tree (trigram), one that names the tenant already (led by it, or after its equality columns), a
 * twin itself.
 *
 * `rangesLast`: an index led by an expression (a folded text, `lower(name)`: lib/storage/list-indexes.ts) serves
 * prefix ranges only, and its twin takes the tenant last instead (`(lower(name), deleted_at, tenant_id)`): a range
 * on its first column, the tenant tested in the index. Where the table is a b-tree by its key (SQLite), a prefix
 * filter's page in key order is best read by walking the table itself until the page is full (0.2 ms at a million
 * customers, against 8 ms for the range of a common prefix and its sort), and SQLite stops weighing that walk once
 * its first choice is an equality search (its "interstage heuristic"): the twin led by the tenant made every such
 * page the range and its sort (customers by name SW Ma: 0.4 → 8.5 ms with tenancy on).
 */
export function tenantTwinOf(
  definition: string, name: string, column: string, rangesLast = false,
): { name: string; definition: string } | undefined {
  if (name.endsWith(SUFFIX) || /^\s*create\s+unique\b/i.test(definition) || /\busing\s+(?!btree\b)\w+/i.test(definition)) return undefined;
  const match = /^(\s*create\s+index\s+(?:if\s+not\s+exists\s+)?)("?)([\w$]+)\2(\s+on\s+[^(]*?\(\s*)/i.exec(definition);
  if (!match) return undefined;
  const rest = definition.slice(match[0].length);
  const end = closingParenthesis(rest);
  // An index that has the tenant as a plain key column already is its migration's design: led by it, or placed after
  // the columns a probe compares with = (`(sales_person_id, customer_id, tenant_id, …)`: the tenant compared only where
  // both matched). Only a bare column counts (quoted or not): `tenant_id DESC`, or the tenant inside an expression, does not.
  if (new RegExp(`(^|,)\\s*"?${column}"?\\s*(,|$)`, 'i').test(end >= 0 ? rest.slice(0, end) : rest)) return undefined;
  const twin = `${name.slice(0, MAX_NAME - SUFFIX.length)}${SUFFIX}`;
  const head = `${match[1]}${match[2]}${twin}${match[2]}${match[4]}`;
  if (rangesLast && end >= 0 && /^[\w$]+\s*\(/.test(rest)) return { name: twin, definition: `${head}${rest.slice(0, end)}, ${column}${rest.slice(end)}` };
  return { name: twin, definition: `${head}${column}, ${rest}` };
}

/** Where the index's column list closes in `rest` (the text after its opening parenthesis); -1 when it does not. */
function closingParenthesis(rest: string): number {
  let depth = 0;
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '(') depth++;
    else if (rest[i] === ')' && depth-- === 0) return i;
  }
  return -1;
}

/**
 * With tenancy on, every list, count and cursor statement of a tenant-owned table compares its tenant column first
 * (lib/storage/record-scope.ts, tenantCondition). An index that does not lead with it cannot hand a tenant's rows over
 * in order, nor test the tenant without reading each row, so each list index of the table gets a twin led by the
 * tenant column (on SQLite a folded text's takes it last: tenantTwinOf), and the table an index of (tenant, key) for
 * lists in key order. Made once, at the first start with
 * tenancy on (under the setup lock, before serving); with tenancy off nothing asks for them, and the tables keep
 * only their own. Answers the names made.
 */
export async function ensureTenantIndexes(
  db: QueryExecutorProvider, dialect: StorageDialect, table: string, column: string, key: string,
): Promise<string[]> {
  const existing = await dialect.indexDefinitions(db, table);
  const names = new Set(existing.map((i) => i.name));
  const wanted = existing.flatMap((i) => tenantTwinOf(i.definition, i.name, column, dialect.clusteredByKey) ?? []).filter((twin) => !names.has(twin.name));
  const keyIndex = `ix_${table}_tenant_key`.slice(0, MAX_NAME);
  if (!names.has(keyIndex)) wanted.push({ name: keyIndex, definition: `create index ${keyIndex} on ${table} (${column}, ${key})` });
  for (const twin of wanted) await sql.raw(twin.definition).execute(db);
  return wanted.map((twin) => twin.name);
}
