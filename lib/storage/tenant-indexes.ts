import { type QueryExecutorProvider, sql } from 'kysely';
import type { IndexDefinition, StorageDialect } from './dialects/dialect.js';

/** The suffix of an index made from another by leading it with the tenant column. */
const SUFFIX = '_tenant';
/** The suffix of an index made as another was before tenancy, until it takes that one's place (restoreIndexesLedInPlace). */
const RESTORING = '_untenanted';
/** An index of another kind than a b-tree (a trigram GIN): neither twinned nor good for a look-up by its first column. */
const NOT_BTREE = /\busing\s+(?!btree\b)\w+/i;
/** The head of a plain CREATE INDEX up to its column list: the words before the name, its quote, the name, the table. */
const HEAD = /^(\s*create\s+index\s+(?:if\s+not\s+exists\s+)?)("?)([\w$]+)\2(\s+on\s+[^(]*?\(\s*)/i;
/** PostgreSQL cuts identifiers at 63 bytes: a derived name must stay unique within that. */
const MAX_NAME = 63;

/** `name` with `suffix`, cut so that the suffix survives PostgreSQL's cut. */
const suffixed = (name: string, suffix: string) => `${name.slice(0, MAX_NAME - suffix.length)}${suffix}`;

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
  if (name.endsWith(SUFFIX) || name.endsWith(RESTORING) || /^\s*create\s+unique\b/i.test(definition) || NOT_BTREE.test(definition)) return undefined;
  const match = HEAD.exec(definition);
  if (!match) return undefined;
  const rest = definition.slice(match[0].length);
  const end = closingParenthesis(rest);
  // An index that has the tenant as a plain key column already is its migration's design: led by it, or placed after
  // the columns a probe compares with = (`(sales_person_id, customer_id, tenant_id, …)`: the tenant compared only where
  // both matched). Only a bare column counts (quoted or not): `tenant_id DESC`, or the tenant inside an expression, does not.
  if (new RegExp(`(^|,)\\s*"?${column}"?\\s*(,|$)`, 'i').test(end >= 0 ? rest.slice(0, end) : rest)) return undefined;
  const twin = suffixed(name, SUFFIX);
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

/** The note (PostgreSQL's COMMENT) on an index made tenant-led in place of its own, before that one's statement. */
const IN_PLACE = 'restlayer tenancy: led by the tenant in place of: ';

/**
 * What ensureTenantIndexes did to one table: twins made beside their indexes, indexes made tenant-led in place, and
 * indexes an earlier start made tenant-led in place that are made as they were again, beside their twin (`lookUps`).
 */
export interface TenantIndexChanges {
  readonly made: string[];
  readonly inPlace: string[];
  readonly lookUps: string[];
}

/**
 * With tenancy on, every list, count and cursor statement of a tenant-owned table compares its tenant column first
 * (lib/storage/record-scope.ts, tenantCondition). An index that does not lead with it cannot hand a tenant's rows over
 * in order, nor test the tenant without reading each row, so each list index of the table gets a twin led by the
 * tenant column (on SQLite a folded text's takes it last: tenantTwinOf), and the table an index of (tenant, key) for
 * lists in key order. Where the dialect says so (`tenantLedInPlace`: PostgreSQL), the twin then takes its index's
 * place, under its name, noted with that index's statement, so that the table has no more indexes for its planner to
 * weigh than before, and a later migration that drops or replaces the index by its name still finds one
 * (restoreIndexesLedInPlace undoes it when tenancy is off); a twin of an earlier start is renamed, not built again.
 * Except, for each column that rows are looked up by without a tenant, one index led by it, where no other index that
 * stays is: a single-column foreign key's (the database checks that no order names a customer it deletes) and
 * `lookedUp`, the reference columns the layer counts a record's referrers by (a delete's 409, purge), which would
 * otherwise read the whole table for each. Made once, at the first start with tenancy on (under the setup lock,
 * before serving); with tenancy off nothing asks for them, and the tables keep only their own.
 */
export async function ensureTenantIndexes(
  db: QueryExecutorProvider, dialect: StorageDialect, table: string, column: string, key: string, lookedUp: readonly string[] = [],
): Promise<TenantIndexChanges> {
  const inPlace = dialect.tenantLedInPlace;
  const found = await dialect.indexDefinitions(db, table);
  // An index a start with tenancy off was making when it stopped (restoreIndexesLedInPlace): nothing asks for it now.
  const leftOver = inPlace ? found.filter((i) => i.name.endsWith(RESTORING)) : [];
  for (const index of leftOver) await sql`drop index ${sql.id(index.name)}`.execute(db);
  const existing = found.filter((i) => !leftOver.includes(i));
  const byName = new Map(existing.map((i) => [i.name, i]));
  const twins = existing.flatMap((index) => {
    const twin = tenantTwinOf(index.definition, index.name, column, dialect.clusteredByKey);
    return twin ? [{ index, twin }] : [];
  });
  const lookUpColumns = inPlace ? new Set([...await inPlace.foreignKeyColumns(db, table), ...lookedUp]) : new Set<string>();
  const kept = keptForLookUps(existing, twins.map((t) => t.index), lookUpColumns);
  const made: string[] = [];
  const replaced: string[] = [];
  for (const { index, twin } of twins) {
    const earlier = byName.get(twin.name);
    const current = earlier?.definition === twin.definition;
    if (!current) {
      // A twin of an index its migration has since made anew (replaceHoldingLive) is of the index as it was.
      if (earlier) await sql`drop index ${sql.id(twin.name)}`.execute(db);
      await sql.raw(twin.definition).execute(db);
    }
    if (inPlace && !kept.has(index.name)) {
      await inPlace.replace(db, index.name, twin.name, IN_PLACE + index.definition);
      replaced.push(index.name);
    } else if (!current) {
      made.push(twin.name);
    }
  }
  const keyIndex = `ix_${table}_tenant_key`.slice(0, MAX_NAME);
  if (!byName.has(keyIndex)) {
    await sql.raw(`create index ${keyIndex} on ${table} (${column}, ${key})`).execute(db);
    made.push(keyIndex);
  }
  const lookUps: string[] = [];
  const putBeside = inPlace?.putBeside;
  // A look-up column that had an index led by it still has one (the loop keeps one for each): only the others need
  // the indexes as the loop left them (one it replaced leads with the tenant now), read again only then.
  const lacking = new Set([...lookUpColumns].filter((c) => !existing.some((i) => leads(i, c))));
  const now = putBeside && lacking.size ? await dialect.indexDefinitions(db, table) : [];
  for (const { index, twin } of ledInPlaceForLookUps(now, column, lacking)) {
    const temporary = await buildUntenanted(db, index, column);
    if (!temporary) continue;
    await putBeside!(db, index.name, temporary, twin);
    lookUps.push(index.name);
  }
  return { made, inPlace: replaced, lookUps };
}

/**
 * Of `indexes` (the table's now), the ones led by the tenant in place of their own (noted) to make as they were again,
 * with the name their twin takes beside them: one for each of `columns` that no other index leads with (a whole or a
 * partial one), where a foreign key added since, or the index kept for it dropped by a migration since, would leave
 * each look-up by it reading the whole table. Chosen as keptForLookUps chooses; not one whose twin's name is taken.
 */
function ledInPlaceForLookUps(
  indexes: readonly IndexDefinition[], column: string, columns: ReadonlySet<string>,
): { index: IndexDefinition; twin: string }[] {
  const names = new Set(indexes.map((i) => i.name));
  const candidates = indexes.flatMap((index) => {
    const twin = suffixed(index.name, SUFFIX);
    const original = index.note?.startsWith(IN_PLACE) && !names.has(twin) ? untenantedStatement(index.definition, column, index.name) : undefined;
    return original ? [{ index, twin, original: { name: index.name, definition: original } }] : [];
  });
  const chosen: { index: IndexDefinition; twin: string }[] = [];
  for (const wanted of columns) {
    if (indexes.some((i) => leads(i, wanted))) continue;
    const best = bestLeading(candidates.map((c) => c.original), wanted);
    const candidate = candidates.find((c) => c.index.name === best?.name);
    if (candidate) chosen.push(candidate);
  }
  return chosen;
}

/**
 * The statement that makes `definition` (an index led by the tenant in place of its own) without its leading tenant
 * column, under `name`; undefined when it is not led by it (changed by hand).
 */
function untenantedStatement(definition: string, column: string, name: string): string | undefined {
  const head = HEAD.exec(definition);
  const rest = head && definition.slice(head[0].length);
  const tenant = rest && new RegExp(`^"?${column}"?\\s*,\\s*`).exec(rest);
  return head && tenant ? `${head[1]}${head[2]}${name}${head[2]}${head[4]}${rest.slice(tenant[0].length)}` : undefined;
}

/**
 * Builds `index` (led by the tenant in place of its own) as its migration made it, under a temporary name (which blocks
 * the table's writes, not its reads, while it runs), from its statement as the store describes it now, so that a
 * column or table renamed since is followed; answers that name, or undefined when the index is led by the tenant no more.
 */
async function buildUntenanted(db: QueryExecutorProvider, index: IndexDefinition, column: string): Promise<string | undefined> {
  const temporary = suffixed(index.name, RESTORING);
  const statement = untenantedStatement(index.definition, column, temporary);
  if (!statement) return undefined;
  // A temporary one a start that stopped midway left is made again, under the same name.
  await sql`drop index if exists ${sql.id(temporary)}`.execute(db);
  await sql.raw(statement).execute(db);
  return temporary;
}

/**
 * Of `twinned` (the indexes of `indexes` that get a tenant-led twin), those that stay as they are beside it: for each
 * of `columns` that no other index of the table leads with (one that gets no twin: a unique one, one that names the
 * tenant), the twinned one that leads with it, a whole one (not partial) with the fewest columns first.
 */
function keptForLookUps(indexes: readonly IndexDefinition[], twinned: readonly IndexDefinition[], columns: ReadonlySet<string>): Set<string> {
  const kept = new Set<string>();
  const staying = indexes.filter((i) => !twinned.includes(i));
  for (const column of columns) {
    if (staying.some((i) => leads(i, column) && !isPartial(i.definition))) continue;
    const best = bestLeading(twinned, column);
    if (best) kept.add(best.name);
  }
  return kept;
}

/** Whether `index` is a b-tree led by `column`: a look-up by that column reads only its entries. */
const leads = (index: IndexDefinition, column: string) => !NOT_BTREE.test(index.definition) && leadingColumn(index.definition) === column;

/** Of `indexes`, the best for look-ups by `column`: led by it, a whole one (not partial) before a partial one, then the fewest columns. */
function bestLeading(indexes: readonly IndexDefinition[], column: string): IndexDefinition | undefined {
  return indexes.filter((i) => leads(i, column)).sort((a, b) => Number(isPartial(a.definition)) - Number(isPartial(b.definition))
    || keyColumns(a.definition).length - keyColumns(b.definition).length)[0];
}

/** The column an index's statement leads with, when it is a column (`customer_id DESC`: customer_id), not an expression. */
function leadingColumn(definition: string): string | undefined {
  return /^"?([\w$]+)"?(?=\s|$)/.exec(keyColumns(definition)[0] ?? '')?.[1];
}

/** The key columns of an index's statement (its column list, split at its top-level commas), each as written. */
function keyColumns(definition: string): string[] {
  const open = /\bon\s+[^(]*?\(\s*/i.exec(definition);
  if (!open) return [];
  const rest = definition.slice(open.index + open[0].length);
  const end = closingParenthesis(rest);
  const columns: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < (end < 0 ? rest.length : end); i++) {
    if (rest[i] === '(') depth++;
    else if (rest[i] === ')') depth--;
    else if (rest[i] === ',' && depth === 0) {
      columns.push(rest.slice(from, i).trim());
      from = i + 1;
    }
  }
  columns.push(rest.slice(from, end < 0 ? rest.length : end).trim());
  return columns;
}

const isPartial = (definition: string) => /\)\s*where\b/i.test(definition);

/**
 * With tenancy off, the indexes an earlier start made tenant-led in place of their own (ensureTenantIndexes, where the
 * dialect does that) become their own again: lists without a tenant filter walk them. Each is made from its statement
 * as the store describes it now, without its leading tenant column (how its twin was made from it), so a column or
 * table renamed since is followed; built under another name (which blocks the table's writes, not its reads, while it
 * runs), then put in its place at once. Twins made beside their indexes stay (nothing asks for them). Answers the
 * names made again.
 */
export async function restoreIndexesLedInPlace(db: QueryExecutorProvider, dialect: StorageDialect, table: string, column: string): Promise<string[]> {
  const inPlace = dialect.tenantLedInPlace;
  if (!inPlace) return [];
  const restored: string[] = [];
  for (const index of await dialect.indexDefinitions(db, table)) {
    if (!index.note?.startsWith(IN_PLACE) || index.name.endsWith(RESTORING)) continue;
    // Led by the tenant no more (changed by hand): as it is.
    const temporary = await buildUntenanted(db, index, column);
    if (!temporary) continue;
    await inPlace.replace(db, index.name, temporary);
    restored.push(index.name);
  }
  return restored;
}
