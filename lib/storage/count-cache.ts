import { type CompiledQuery, type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import { BoundedMap } from '../bounded-map.js';
import { LIST_CHANGE_TABLE, generationOf } from './list-changes.js';

/** Counts kept per database; a key is the count's SQL and parameters. */
const COUNTS_KEPT = 1_000;

interface KeptCount {
  generation: string;
  count: number;
}

/** One cache per database (a reader stands for it): two databases may run the same count at the same generation. */
const caches = new WeakMap<object, BoundedMap<string, KeptCount>>();

type Count = RawBuilder<{ count: number | string }>;

/** Whether a database has the generation table (a migration that tracks a table made it), asked once per database. */
const tracking = new WeakMap<object, Promise<boolean>>();

function tracksChanges<DB>(db: Kysely<DB>, readBudget: readonly RawBuilder<SqlBool>[]): Promise<boolean> {
  let known = tracking.get(db);
  if (!known) {
    known = sql`select count(*) as n from ${sql.table(LIST_CHANGE_TABLE)} where ${sql.join([sql`1 = 0`, ...readBudget], sql` and `)}`
      .execute(db).then(() => true, () => false);
    tracking.set(db, known);
  }
  return known;
}

/**
 * Compiled once per database: a count's statement (a list's build, with its count, is reused for repeats of the same
 * request: lib/storage/list-query.ts) and the check of the generation of a set of tables. Compiling them each time cost
 * more than running them.
 */
const compiled = new WeakMap<object, { counts: WeakMap<Count, CompiledQuery>; generations: Map<string, CompiledQuery> }>();

function compiledFor<DB>(db: Kysely<DB>) {
  return compiled.get(db) ?? compiled.set(db, { counts: new WeakMap(), generations: new Map() }).get(db)!;
}

/**
 * The exact count of `count`'s rows, and the generation of `tables` it stands at (none when they are not tracked:
 * nothing read from them may be kept). A count of most of a large table walks most of an index (~50 ms per million
 * entries on SQLite, more on PostgreSQL); this one is kept with the generation of `tables` it was read at
 * (lib/storage/list-changes.ts) and answered again while that generation stands, which a cheap primary-key read tells.
 * The count and its generation come from one statement, so from one snapshot: a write that commits after it moves
 * the generation on, and the next request counts again. Tables without change tracking are counted every time.
 */
export async function exactCount<DB>(
  db: Kysely<DB>, count: Count, tables: readonly string[], readBudget: readonly RawBuilder<SqlBool>[] = [],
): Promise<{ count: number; generation?: string }> {
  if (!(await tracksChanges(db, readBudget))) return { count: Number((await count.execute(db)).rows[0].count) };
  const known = compiledFor(db);
  let statement = known.counts.get(count);
  if (!statement) known.counts.set(count, (statement = count.compile(db)));
  const key = `${statement.sql}\n${JSON.stringify(statement.parameters)}`;
  const cache = caches.get(db) ?? caches.set(db, new BoundedMap(COUNTS_KEPT)).get(db)!;
  const kept = cache.get(key);
  if (kept) {
    // The tables a database's lists read are few (a service's own, their joins): one compiled check each.
    const tablesKey = tables.join('\n');
    let check = known.generations.get(tablesKey);
    if (!check) known.generations.set(tablesKey, (check = sql`select ${generationOf(tables, readBudget)} as generation`.compile(db)));
    const { rows } = await db.executeQuery(check as CompiledQuery<{ generation: string | number | null }>);
    if (rows[0]?.generation != null && String(rows[0].generation) === kept.generation) return kept;
  }
  // The generation without the budget term: the count alone decides where this statement runs. A count without the
  // term (a whole table, a trigram index) must go to the readers, and the term in the generation's subquery would
  // keep it on the main connection, where SQLite only checks the budget while it reads the tiny generation table.
  const { rows } = await sql<{ generation: string | number | null; count: number | string }>`
    select ${generationOf(tables)} as generation, counted.count from (${count}) as counted`.execute(db);
  const { generation, count: counted } = rows[0];
  if (generation == null) {
    cache.delete(key);
    return { count: Number(counted) };
  }
  const read = { generation: String(generation), count: Number(counted) };
  cache.set(key, read);
  return read;
}
