import { type CompiledQuery, type RawBuilder, type SqlBool, sql } from 'kysely';
import { BoundedMap } from '../bounded-map.js';
import { currentErrors } from '../envelope/request-scope.js';
import { MESSAGES } from '../envelope/message-catalogue.js';
import type { FieldCriterion, ListOptions } from '../validation/criteria.js';
import { exactCount } from './count-cache.js';
import { criterionSql } from './criteria-sql.js';
import type { StorageDialect } from './dialects/dialect.js';
import { cannotMatch } from './list-text-bounds.js';
import { type RecordScopes, callerScopeKey, scopeCondition, scopeReads, softDeleteCondition, tenantCondition } from './record-scope.js';
import { currentAccess, viewingDeleted } from '../envelope/request-scope.js';
import {
  CURSOR_EDITED, CursorError, type CursorKeys, type CursorValue, type OrderTerm, afterCursor, cursorValues, decodeCursor, encodeCursor, listFingerprint,
} from './list-cursor.js';
import { generationOf } from './list-changes.js';
import { type Position, keepPositions, positionBefore } from './list-positions.js';
import type { Storage } from './storage.js';

/**
 * A table a list joins for some of its columns. It must match exactly one row per listed row (a NOT NULL foreign key
 * to its primary key): only then may a count or a page's keys leave it out when no filter or sort names its columns.
 */
export interface ListJoin {
  table: string;
  alias: string;
  /** The joined table's key column (`c.customer_id`): it follows a sort on the join's columns, so its index is walked in order. */
  key: string;
  /** The listed table's column that refers to `key` (`so.customer_id`). */
  refers: string;
  /**
   * The joined table's tenant column, of a tenant-owned one: the join takes the caller's tenant too. It changes no
   * row (a reference resolves within the tenant), but tells the planner that the joined table's tenant-led index
   * serves: SQLite otherwise sorted every order of a tenant by its customer's name instead of walking the names.
   */
  tenant?: string;
}

/** What a service lists: its table, the wire fields' columns, the joins and the row it reads. */
export interface ListDefinition<F extends string> {
  table: string;
  alias: string;
  /** The primary key (`so.sales_order_id`): it breaks ties, so pages never overlap or skip rows. */
  id: string;
  /** Wire field → `alias.column`, for filters and sorting. Only these names ever reach SQL text. */
  columns: Record<F, string>;
  joins?: readonly ListJoin[];
  /** The row's columns, as `alias.column` or `alias.column as name`. */
  select: readonly string[];
  /**
   * The fields whose columns are NOT NULL. A cursor's page seeks to its place in an index through a plain range of
   * the first sort column only on these; on the others, NULLs may sort after the cursor's value, and the range must
   * let them in too, which an index cannot seek (the page still comes right, walking more of the index).
   */
  notNull?: readonly F[];
  /**
   * Text fields whose column has a trigram index (`listIndexes(...).createFullTextIndex`, in the table that owns the
   * column): criterion CN on them reads that index instead of every row.
   */
  fullText?: readonly F[];
  /**
   * The most characters a text field's values hold (its `text({ max })`): a criterion no such value can match
   * (lib/storage/list-text-bounds.ts) answers an empty list without reading anything.
   */
  maxLength?: { readonly [K in F]?: number };
  /**
   * The record scopes that may limit the caller (lib/storage/record-scope.ts): the current caller's condition joins
   * the filters in the page's keys and in the count, so a record out of scope is in no page, no count, no cursor's
   * page and no deep page read from the end. Conditions name the listed table's alias only (or read other tables in
   * a subquery): the keys need no join for them.
   */
  scopes?: RecordScopes;
  /**
   * The soft-delete column (`deleted_at`) of a soft-deletable table: the list holds the records not deleted, or inside
   * withDeletedView (lib/envelope/request-scope.ts) the deleted ones — in the page, the count and every cursor's page.
   */
  softDelete?: string;
  /** The tenant column (`tenant_id`) of a tenant-owned table: with tenancy on, the list holds the caller's tenant's records only. */
  tenant?: string;
}

/** The criteria a list takes: filters by field name plus paging, count and sort. */
export type ListCriteria<F extends string> = ListOptions<F> & { readonly [K in F]?: FieldCriterion<unknown> };

export interface ListSql<R> {
  /** One page (take + 1 rows, to tell whether the cap cut it): its keys first, then its rows. */
  page: RawBuilder<R>;
  /** The page's keys, in the list's order (or its reverse, for a page read from the end): the part that walks an index. */
  keys: RawBuilder<{ list_key: number }>;
  count?: RawBuilder<{ count: number | string }>;
  /** What a cursor of this list must carry (lib/storage/list-cursor.ts), and how many order terms it holds. */
  fingerprint: string;
  terms: number;
  /** Whether a criterion may read a trigram index (a CN on a `fullText` field): only then does `fullTextPage` change the SQL. */
  fullText: boolean;
  /** Whether a page after a row can seek to it through an index: its first order term is NOT NULL (see `notNull`). */
  canSeek: boolean;
}

/** The rows a page reads: `limit` keys after `offset`, in the list's order or, from the end, in its reverse. */
export interface PageWindow {
  offset: number;
  limit: number;
  fromEnd: boolean;
  /** Counted from the row after these order values (a kept position: lib/storage/list-positions.ts), not the list's start. */
  after?: readonly CursorValue[];
  /**
   * The rows carry their order terms' values exactly as they bind back (the dialect's `exactValue`), and the
   * generation of these tables (lib/storage/list-changes.ts) they were read at: to keep positions from.
   */
  positionsOf?: readonly string[];
}

/** A page's rows carry the values of the order's terms under these names when the client pages with a cursor. */
const ORDER_VALUE_PREFIX = 'list_order_';
const orderValue = (i: number) => `${ORDER_VALUE_PREFIX}${i}`;
/** The tables' generation a page that keeps positions was read at: one more column the rows lose before they are answered. */
const READ_AT = `${ORDER_VALUE_PREFIX}generation`;
/** A row's values of the list's `terms` order terms. */
const orderValuesOf = (row: Record<string, unknown>, terms: number) => Array.from({ length: terms }, (_, i) => row[orderValue(i)]);

/**
 * A cursor page's row without the order values it was read with (they made its cursor). Copied, not `delete`d: a
 * deleted property turns each row into a dictionary, whose storage V8 keeps in its old generation, so that paging
 * through 100,000 rows (a CSV export) grew the server's memory by tens of megabytes of garbage (bench/export.js).
 */
function withoutOrderValues<R extends Record<string, unknown>>(row: R): R {
  const clean: Record<string, unknown> = {};
  for (const name in row) if (!name.startsWith(ORDER_VALUE_PREFIX)) clean[name] = row[name];
  return clean as R;
}

const aliasOf = (column: string) => column.slice(0, column.indexOf('.'));

/** `alias.column` or `alias.column as name`, as SQL. */
function selected(column: string) {
  const [ref, name] = column.split(' as ');
  return name ? sql`${sql.ref(ref)} as ${sql.id(name)}` : sql.ref(ref);
}

/**
 * The SQL of one list request. A page selects its keys first, from the narrowest index that holds the filter and sort
 * columns (and no joins they do not name), and reads the rows of only those keys: a deep `skip` then walks index
 * entries, not rows and their customers. The count joins only what the filters name. A cursor (keyset paging) seeks
 * to the row after the cursor's through the same index, whatever the depth. Throws CursorError for a cursor that is
 * not one of this list's.
 */
export function listSql<F extends string, R>(
  def: ListDefinition<F>, criteria: ListCriteria<F>, dialect: StorageDialect, take: number,
  window: PageWindow = { offset: criteria.skip ?? 0, limit: take + 1, fromEnd: false }, fullTextPage = false, cursorKeys?: CursorKeys,
): ListSql<R> {
  const fields = Object.keys(def.columns) as F[];
  const filters = fields.filter((name) => criteria[name]).map((name) => ({ name, criterion: criteria[name] as FieldCriterion<unknown> }));
  const scope = scopeCondition(def.scopes, def.alias);
  const live = softDeleteCondition(def.softDelete, def.alias);
  const tenant = tenantCondition(def.tenant, def.alias);
  // The scope is one more condition, in every query of the list: taken with the filters by every index choice.
  const plain = [
    ...filters.map(({ name, criterion }) => criterionSql(def.columns[name], criterion, dialect)),
    ...(tenant ? [tenant] : []), ...(scope ? [scope] : []), ...(live ? [live] : []),
  ];
  const trigram = filters.flatMap(({ name, criterion }) => containsIndex(def, name, criterion, dialect));
  const indexed = [...plain, ...trigram];
  const conditions = fullTextPage ? indexed : plain;
  // A trigram index does its work before the query visits a row, where the main thread's budget cannot stop it
  // (lib/storage/sqlite-read-budget.ts): a query that reads one goes to the readers directly.
  const countBudget = trigram.length ? [] : dialect.readBudget;
  // The soft-delete filter alone leaves a count of (nearly) the whole table: as one without it, it takes no budget
  // term and goes to the readers.
  // So does the tenant filter alone: one tenant may hold (nearly) every record.
  const narrowed = indexed.length > (live ? 1 : 0) + (tenant ? 1 : 0);
  const keysBudget = fullTextPage ? countBudget : dialect.readBudget;
  const table = sql`${sql.table(def.table)} as ${sql.id(def.alias)}`;
  // The rows of a page are read in the page's order of keys: SQLite otherwise may walk a whole sort index to skip
  // its sort of take + 1 rows (the dialect's joinInOrder).
  const joinWord = (inOrder: boolean) => (inOrder ? dialect.joinInOrder : sql`join`);
  const joins = (aliases: Set<string>, inOrder = false) => sql.join((def.joins ?? []).filter((j) => aliases.has(j.alias))
    .map((j) => {
      const sameTenant = tenantCondition(j.tenant, j.alias);
      return sql`${joinWord(inOrder)} ${sql.table(j.table)} as ${sql.id(j.alias)} on ${sql.ref(j.key)} = ${sql.ref(j.refers)}${sameTenant ? sql` and ${sameTenant}` : sql``}`;
    }), sql` `);

  const sort = criteria.sort ?? [];
  // Ties are broken in the first key's direction, so a descending sort walks its index backwards with no sort step;
  // a sort on a joined column takes the join's key first, as that index (name, key) hands the rows over in that order.
  const tieBreak = sort[0]?.sortDirection === 'Descending';
  const sortAliases = new Set(sort.map((s) => aliasOf(def.columns[s.fieldName])));
  const joinKeys = (def.joins ?? []).filter((j) => sortAliases.has(j.alias)).map((j) => j.key);
  const terms: OrderTerm[] = [
    ...sort.map((s) => ({ ref: def.columns[s.fieldName], descending: s.sortDirection === 'Descending', nullable: !def.notNull?.includes(s.fieldName) })),
    ...[...joinKeys, def.id].map((ref) => ({ ref, descending: tieBreak, nullable: false })),
  ];
  const orderBy = (reverse: boolean) => sql.join(terms.map((t) => sql`${sql.ref(t.ref)} ${t.descending !== reverse ? sql`desc` : sql`asc`}`));

  // A cursor of the deleted records' list is no cursor of the other records' list, nor one tenant's of another's.
  const listed = def.softDelete && viewingDeleted() ? `${def.table}:deleted` : def.table;
  const fingerprint = listFingerprint(tenant ? `${listed}@${currentAccess()?.tenant}` : listed, filters, sort);
  const after = criteria.cursor ? decodeCursor(criteria.cursor, fingerprint, terms.length, cursorKeys) : window.after;
  const seek = after ? [afterCursor(terms, after, dialect)] : [];
  const where = (all: RawBuilder<SqlBool>[]) => (all.length ? sql`where ${sql.join(all, sql` and `)}` : sql``);

  const filterAliases = new Set(filters.map(({ name }) => aliasOf(def.columns[name])));
  const keyJoins = joins(new Set([...filterAliases, ...sortAliases]));
  const keys = sql<{ list_key: number }>`select ${sql.ref(def.id)} as list_key from ${table} ${keyJoins} ${where([...conditions, ...seek, ...keysBudget])}
    order by ${orderBy(window.fromEnd)} limit ${window.limit} offset ${window.offset}`;
  const everyJoin = new Set((def.joins ?? []).map((j) => j.alias));
  const exact = (ref: string) => (window.positionsOf && dialect.exactValue ? dialect.exactValue(sql.ref(ref)) : sql.ref(ref));
  const columns = [
    ...def.select.map(selected),
    ...(criteria.cursor != null || window.positionsOf ? terms.map((t, i) => sql`${exact(t.ref)} as ${sql.id(orderValue(i))}`) : []),
    ...(window.positionsOf ? [sql`${generationOf(window.positionsOf)} as ${sql.id(READ_AT)}`] : []),
  ];
  const page = sql<R>`select ${sql.join(columns)}
    from (${keys}) as list_page ${joinWord(true)} ${table} on ${sql.ref(def.id)} = list_page.list_key ${joins(everyJoin, true)}
    order by ${orderBy(false)}`;
  const count = criteria.getTotalCount
    ? sql<{ count: number | string }>`select count(*) as count from ${table} ${joins(filterAliases)} ${where(narrowed ? [...indexed, ...countBudget] : indexed)}`
    : undefined;
  return { page, keys, count, fingerprint, terms: terms.length, fullText: trigram.length > 0, canSeek: !terms[0].nullable };
}

/** The trigram index's condition for a CN on a full-text field, where the dialect reads it apart from the LIKE (SQLite); nothing otherwise. */
function containsIndex<F extends string>(def: ListDefinition<F>, name: F, criterion: FieldCriterion<unknown>, dialect: StorageDialect): RawBuilder<SqlBool>[] {
  if (criterion.operator !== 'CN' || !def.fullText?.includes(name)) return [];
  const column = def.columns[name];
  const alias = aliasOf(column);
  const owner = alias === def.alias ? { table: def.table, key: def.id } : def.joins?.find((j) => j.alias === alias);
  const match = owner && dialect.fullTextMatch(owner.table, column.slice(alias.length + 1), owner.key, String(criterion.values[0]));
  return match ? [match] : [];
}

/** `RestAPI:MaxRows`: the default and the cap of `take`; and the keys that sign cursors (lib/storage/list-limits.ts). */
export interface ListLimits {
  maxRows: number;
  /** Without them, cursors are signed with a key of this process only: refused by other workers and after a restart. */
  cursorKeys?: CursorKeys;
}

/**
 * From this skip on, a page may be read from the end of the list (it needs the count, kept by lib/storage/count-cache.ts):
 * an offset walks that many index entries, so one past the middle walks fewer from the other end.
 */
const DEEP_SKIP = 1_000;

/**
 * A page whose CN may read a trigram index (SQLite, `fullText`) does so when the count says the matches are at most
 * this many. The index hands over every match (a common text's trigrams are long lists: 34 ms for 23,000 of a million
 * customers), while a walk in the list's order stops at a full page (0.6 ms there): the index pays when matches are
 * few, the walk when they are many. Without a count, the page walks. The count itself always reads the index.
 */
const FULL_TEXT_PAGE_MATCHES = 5_000;

/** The window of a page past the middle of `total` matches, read from the end: the same rows, fewer entries walked. */
export function fromEnd(total: number, skip: number, take: number): PageWindow {
  const end = Math.min(skip + take + 1, total);
  return { offset: total - end, limit: Math.max(end - skip, 0), fromEnd: true };
}

/** A list request's SQL as first built, and its page compiled: what a repeat of the same request reuses. */
interface ListBuild<R> {
  query: ListSql<R>;
  page: CompiledQuery<R>;
}

/** Builds kept per list definition, per database (a reader stands for it: a build is compiled for its dialect). */
const BUILDS_KEPT = 500;
const builds = new WeakMap<object, WeakMap<object, BoundedMap<string, ListBuild<unknown>>>>();

function keptBuilds(db: object, def: object): BoundedMap<string, ListBuild<unknown>> {
  const byDef = builds.get(db) ?? builds.set(db, new WeakMap()).get(db)!;
  return byDef.get(def) ?? byDef.set(def, new BoundedMap(BUILDS_KEPT)).get(def)!;
}

/**
 * What a list's SQL depends on besides its definition and database: the criteria (their values too: they are the
 * statement's parameters), `take`, and the caller's record scopes with what a scope's condition may read (the
 * caller's attributes and user name). Undefined for a page by cursor: its cursor is verified as the SQL is built,
 * and must be each time (keys rotate).
 */
function buildKey<F extends string>(criteria: ListCriteria<F>, take: number): string | undefined {
  if (criteria.cursor != null) return undefined;
  return JSON.stringify([criteria, take, callerScopeKey()]);
}

/**
 * The SQL of a list request and its compiled page, kept for repeats: building the SQL with Kysely and compiling it
 * cost a third of a 50-row page's CPU (interleaved A/B), and grids ask the same pages again and again.
 */
function listBuild<F extends string, R>(
  db: Storage['reader'], def: ListDefinition<F>, criteria: ListCriteria<F>, dialect: StorageDialect, take: number, cursorKeys?: CursorKeys,
): ListBuild<R> {
  const build = (): ListBuild<R> => {
    const query = listSql<F, R>(def, criteria, dialect, take, undefined, false, cursorKeys);
    return { query, page: query.page.compile(db) };
  };
  const key = buildKey(criteria, take);
  if (key === undefined) return build();
  const kept = keptBuilds(db, def);
  const found = kept.get(key) as ListBuild<R> | undefined;
  if (found) return found;
  const made = build();
  kept.set(key, made as ListBuild<unknown>);
  return made;
}

/**
 * Runs a list request: the page (capped at `maxRows`, with a `Service_MaxRows` warning when the cap cut it), the count
 * of every match when asked for, and the next page's cursor when the client pages with one (`cursor`). Both go
 * through the store's reader: a list is the query that can grow slow, so it runs off the event loop and is stopped
 * (503 Request_Timeout) past `Storage:QueryTimeoutSeconds`. Counts are exact; they are kept while the tables they
 * read do not change. A cursor that is not one of this list's is a 400 on `cursor`, and no rows.
 */
export async function readListRows<F extends string, R>(
  storage: Pick<Storage, 'reader' | 'dialect'>, def: ListDefinition<F>, criteria: ListCriteria<F>, { maxRows, cursorKeys }: ListLimits,
): Promise<{ rows: R[]; totalCount?: number; nextCursor?: string }> {
  const db = storage.reader;
  const take = Math.min(criteria.take ?? maxRows, maxRows);
  const skip = criteria.skip ?? 0;
  // A cursor's page seeks through an index whatever its depth; only an offset page may be read from the end.
  const deep = skip >= DEEP_SKIP && criteria.cursor == null;
  const refuseCursor = (why: string) => {
    currentErrors().add(MESSAGES.Input_InvalidCursor({ why, property: 'cursor' }));
    return { rows: [] };
  };
  let query: ListSql<R & Record<string, unknown>>;
  let compiledPage: CompiledQuery<R & Record<string, unknown>> | undefined;
  try {
    ({ query, page: compiledPage } = listBuild<F, R & Record<string, unknown>>(db, def, deep ? { ...criteria, getTotalCount: true } : criteria, storage.dialect, take, cursorKeys));
  } catch (err) {
    if (err instanceof CursorError) return refuseCursor(err.message);
    throw err;
  }
  const filtered = Object.keys(def.columns) as F[];
  if (filtered.some((name) => criteria[name] && cannotMatch(criteria[name] as FieldCriterion<unknown>, def.maxLength?.[name]))) {
    return { rows: [], totalCount: criteria.getTotalCount ? 0 : undefined };
  }
  // A kept count follows the tables the caller's scope reads too (customers through their orders).
  const tables = [...new Set([def.table, ...(def.joins ?? []).map((j) => j.table), ...scopeReads(def.scopes)])];
  const counted = query.count && (await exactCount(db, query.count, tables, storage.dialect.readBudget));
  const total = counted ? counted.count : undefined;
  const fromTheEnd = deep && total !== undefined && skip > total / 2;
  // Built again only when that changes its SQL: a list with few matches and no trigram condition keeps its first build.
  const fewMatches = query.fullText && total !== undefined && total <= FULL_TEXT_PAGE_MATCHES;
  // A deep page keeps where it starts and where the next one does, while the tables' generation stands.
  const positions = deep && query.canSeek && counted?.generation !== undefined && skip <= counted.count
    ? { key: `${query.fingerprint}\n${callerScopeKey()}`, generation: counted.generation } : undefined;
  let window = fromTheEnd ? fromEnd(total, skip, take) : undefined;
  // Whether the page's first row is the one before `skip`, read for its position only.
  let leading = false;
  // Whether the page starts from a kept position rather than the list's start or end.
  let seeking = false;
  if (positions && total !== undefined) {
    const from = positionBefore(db, def, positions.key, positions.generation, skip);
    seeking = from !== undefined && skip - from.offset < (fromTheEnd ? total - skip : skip);
    if (from && seeking) {
      leading = from.offset < skip;
      window = { offset: leading ? skip - from.offset - 1 : 0, limit: take + (leading ? 2 : 1), fromEnd: false, after: from.after, positionsOf: tables };
    } else {
      leading = true;
      window = { ...(fromTheEnd ? fromEnd(total, skip - 1, take + 1) : { offset: skip - 1, limit: take + 2, fromEnd: false }), positionsOf: tables };
    }
  }
  const read = async (pageWindow: PageWindow | undefined) => {
    if (pageWindow || fewMatches) {
      query = listSql(def, criteria, storage.dialect, take, pageWindow, fewMatches, cursorKeys);
      compiledPage = undefined;
    }
    try {
      return (await db.executeQuery(compiledPage ?? query.page.compile(db))).rows;
    } catch (err) {
      // A cursor's values are bound as they came; one the column's type refuses (PostgreSQL's class 22, data exception:
      // text where a date goes) was edited by hand.
      if (criteria.cursor && /^22/.test(String((err as { code?: unknown }).code))) return undefined;
      throw err;
    }
  };
  let rows = await read(window);
  if (!rows) return refuseCursor(CURSOR_EDITED);
  // A write committed between the count's generation and the page: a kept position may no longer be where it was,
  // nor the end where the count put it, so the page is read again by its offset from the start (one snapshot), and
  // nothing read at the newer generation is kept under the older.
  const stale = positions && rows.length > 0 && String(rows[0][READ_AT]) !== positions.generation;
  if (stale && (seeking || fromTheEnd)) {
    rows = (await read({ offset: skip, limit: take + 1, fromEnd: false }))!;
    leading = false;
  }
  const before = leading ? rows.shift() : undefined;
  if (positions && !stale) {
    const found: Position[] = [];
    if (before) found.push({ offset: skip, after: cursorValues(orderValuesOf(before, query.terms)) });
    if (take > 0 && rows.length >= take) found.push({ offset: skip + take, after: cursorValues(orderValuesOf(rows[take - 1], query.terms)) });
    keepPositions(db, def, positions.key, positions.generation, found);
  }
  let nextCursor: string | undefined;
  if (rows.length > take) {
    rows.length = take;
    if (criteria.cursor != null && take > 0) {
      nextCursor = encodeCursor(query.fingerprint, orderValuesOf(rows[take - 1], query.terms), cursorKeys);
    }
    // Only a cut made by the cap is worth a warning; a caller's own (smaller or equal) take is not.
    if (criteria.take == null || criteria.take > maxRows) {
      currentErrors().add(MESSAGES.Service_MaxRows({ maxRows }));
    }
  }
  if (criteria.cursor != null || positions) rows = rows.map(withoutOrderValues);
  return { rows, totalCount: criteria.getTotalCount ? total : undefined, nextCursor };
}
