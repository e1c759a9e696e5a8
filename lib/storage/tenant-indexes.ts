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
 * that is not a b-tree (trigram), one led by the tenant already, a twin itself.
 */
export function tenantTwinOf(definition: string, name: string, column: string): { name: string; definition: string } | undefined {
  if (name.endsWith(SUFFIX) || /^\s*create\s+unique\b/i.test(definition) || /\busing\s+(?!btree\b)\w+/i.test(definition)) return undefined;
  const match = /^(\s*create\s+index\s+(?:if\s+not\s+exists\s+)?)("?)([\w$]+)\2(\s+on\s+[^(]*?\(\s*)/i.exec(definition);
  if (!match) return undefined;
  const rest = definition.slice(match[0].length);
  if (new RegExp(`^"?${column}"?\\s*[,)]`, 'i').test(rest)) return undefined;
  const twin = `${name.slice(0, MAX_NAME - SUFFIX.length)}${SUFFIX}`;
  return { name: twin, definition: `${match[1]}${match[2]}${twin}${match[2]}${match[4]}${column}, ${rest}` };
}

/**
 * With tenancy on, every list, count and cursor statement of a tenant-owned table compares its tenant column first
 * (lib/storage/record-scope.ts, tenantCondition). An index that does not lead with it cannot hand a tenant's rows over
 * in order, nor test the tenant without reading each row, so each list index of the table gets a twin led by the
 * tenant column, and the table an index of (tenant, key) for lists in key order. Made once, at the first start with
 * tenancy on (under the setup lock, before serving); with tenancy off nothing asks for them, and the tables keep
 * only their own. Answers the names made.
 */
export async function ensureTenantIndexes(
  db: QueryExecutorProvider, dialect: StorageDialect, table: string, column: string, key: string,
): Promise<string[]> {
  const existing = await dialect.indexDefinitions(db, table);
  const names = new Set(existing.map((i) => i.name));
  const wanted = existing.flatMap((i) => tenantTwinOf(i.definition, i.name, column) ?? []).filter((twin) => !names.has(twin.name));
  const keyIndex = `ix_${table}_tenant_key`.slice(0, MAX_NAME);
  if (!names.has(keyIndex)) wanted.push({ name: keyIndex, definition: `create index ${keyIndex} on ${table} (${column}, ${key})` });
  for (const twin of wanted) await sql.raw(twin.definition).execute(db);
  return wanted.map((twin) => twin.name);
}
