import { type RawBuilder, sql } from 'kysely';
import { currentErrors } from '../envelope/request-scope.js';
import type { FieldCriterion, ListOptions } from '../validation/criteria.js';
import { criterionSql } from './criteria-sql.js';
import type { SqlValues } from './sql-values.js';
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
}

/** The criteria a list takes: filters by field name plus paging, count and sort. */
export type ListCriteria<F extends string> = ListOptions<F> & { readonly [K in F]?: FieldCriterion<unknown> };

export interface ListSql<R> {
  /** One page (take + 1 rows, to tell whether the cap cut it): its keys first, then its rows. */
  page: RawBuilder<R>;
  /** The page's keys, in the list's order: the part that walks an index. */
  keys: RawBuilder<{ list_key: number }>;
  count?: RawBuilder<{ count: number | string }>;
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
 * entries, not rows and their customers. The count joins only what the filters name.
 */
export function listSql<F extends string, R>(def: ListDefinition<F>, criteria: ListCriteria<F>, values: SqlValues, take: number): ListSql<R> {
  const fields = Object.keys(def.columns) as F[];
  const filters = fields.filter((name) => criteria[name]).map((name) => ({ name, criterion: criteria[name] as FieldCriterion<unknown> }));
  const conditions = filters.map(({ name, criterion }) => criterionSql(def.columns[name], criterion, values));
  const where = conditions.length ? sql`where ${sql.join(conditions, sql` and `)}` : sql``;
  const table = sql`${sql.table(def.table)} as ${sql.id(def.alias)}`;
  // The rows of a page are read in the page's order of keys: SQLite otherwise may walk a whole sort index to skip
  // its sort of take + 1 rows. A CROSS JOIN fixes SQLite's join order; PostgreSQL's planner starts at the page itself.
  const joinWord = (inOrder: boolean) => (inOrder && values.provider === 'sqlite' ? sql`cross join` : sql`join`);
  const joins = (aliases: Set<string>, inOrder = false) => sql.join((def.joins ?? []).filter((j) => aliases.has(j.alias))
    .map((j) => sql`${joinWord(inOrder)} ${sql.table(j.table)} as ${sql.id(j.alias)} on ${sql.ref(j.key)} = ${sql.ref(j.refers)}`), sql` `);

  const sort = criteria.sort ?? [];
  const direction = (d: string | undefined) => (d === 'Descending' ? sql`desc` : sql`asc`);
  // Ties are broken in the first key's direction, so a descending sort walks its index backwards with no sort step;
  // a sort on a joined column takes the join's key first, as that index (name, key) hands the rows over in that order.
  const tieBreak = direction(sort[0]?.sortDirection);
  const sortAliases = new Set(sort.map((s) => aliasOf(def.columns[s.fieldName])));
  const joinKeys = (def.joins ?? []).filter((j) => sortAliases.has(j.alias)).map((j) => j.key);
  const orderBy = sql.join([
    ...sort.map((s) => sql`${sql.ref(def.columns[s.fieldName])} ${direction(s.sortDirection)}`),
    ...[...joinKeys, def.id].map((key) => sql`${sql.ref(key)} ${tieBreak}`),
  ]);

  const filterAliases = new Set(filters.map(({ name }) => aliasOf(def.columns[name])));
  const keyJoins = joins(new Set([...filterAliases, ...sortAliases]));
  const keys = sql<{ list_key: number }>`select ${sql.ref(def.id)} as list_key from ${table} ${keyJoins} ${where}
    order by ${orderBy} limit ${take + 1} offset ${criteria.skip ?? 0}`;
  const everyJoin = new Set((def.joins ?? []).map((j) => j.alias));
  const page = sql<R>`select ${sql.join(def.select.map(selected))}
    from (${keys}) as list_page ${joinWord(true)} ${table} on ${sql.ref(def.id)} = list_page.list_key ${joins(everyJoin, true)}
    order by ${orderBy}`;
  const count = criteria.getTotalCount
    ? sql<{ count: number | string }>`select count(*) as count from ${table} ${joins(filterAliases)} ${where}`
    : undefined;
  return { page, keys, count };
}

/** `RestAPI:MaxRows`: the default and the cap of `take`. */
export interface ListLimits {
  maxRows: number;
}

/**
 * Runs a list request: the page (capped at `maxRows`, with a `Service_MaxRows` warning when the cap cut it) and, when
 * asked for, the count of every match. Both go through the store's reader: a list is the query that can grow slow,
 * so it runs off the event loop and is stopped (503 Request_Timeout) past `Storage:QueryTimeoutSeconds`.
 */
export async function readListRows<F extends string, R>(
  storage: Pick<Storage, 'reader' | 'values'>, def: ListDefinition<F>, criteria: ListCriteria<F>, { maxRows }: ListLimits,
): Promise<{ rows: R[]; totalCount?: number }> {
  const db = storage.reader;
  const take = Math.min(criteria.take ?? maxRows, maxRows);
  const query = listSql<F, R>(def, criteria, storage.values, take);
  const { rows } = await query.page.execute(db);
  if (rows.length > take) {
    rows.length = take;
    // Only a cut made by the cap is worth a warning; a caller's own (smaller or equal) take is not.
    if (criteria.take == null || criteria.take > maxRows) {
      currentErrors().warning('Service_MaxRows', `Only the first ${maxRows} rows are returned. Narrow the criteria or page with skip and take.`);
    }
  }
  const counted = query.count && (await query.count.execute(db)).rows[0];
  return { rows, totalCount: counted ? Number(counted.count) : undefined };
}
