import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import { BoundedMap } from '../bounded-map.js';
import { callerScopeKey } from './record-scope.js';

/** Stands for one named value while the SQL is built: compiled, it is a parameter that each run fills in. */
class Placeholder {
  constructor(readonly name: string) {}
}

/** A compiled statement and, for each of its parameters, the placeholder it came from (or the value it holds). */
interface Kept {
  compiled: CompiledQuery;
  slots: ReadonlyArray<Placeholder | { value: unknown }>;
}

/** Shapes kept per query and SQL dialect: one per distinct caller scope (keyed as lists key theirs). */
const SHAPES_KEPT = 500;

/**
 * A query built with Kysely and compiled once, then run again and again with new values: building and compiling a
 * read of one order with its customer and lines cost about 40 µs a time, a large share of a request by key (and
 * the garbage of hundreds of frozen nodes). Its values are named (`params`, single values: no arrays for `in`): `build` gets
 * stand-ins for them and must pass them to Kysely untouched (`.where('id', '=', p.id)`), never compute with them; a
 * stand-in the compiled SQL does not carry as a parameter fails the first run, loudly.
 *
 * What else the SQL depends on is part of the key: the SQL dialect (one compiled form per dialect adapter, so the same
 * query serves a store and its transactions, PostgreSQL and SQLite alike) and the current caller's record scopes with
 * the attributes and user name a scope's condition may read. `build` must depend on nothing more (no clock, no
 * settings that change).
 */
export function keptQuery<DB, P extends Record<string, unknown>, R>(
  build: (db: Kysely<DB>, params: P) => Compilable<R>,
): (db: Kysely<DB>, params: P) => Promise<R[]> {
  const byDialect = new WeakMap<object, BoundedMap<string, Kept>>();
  const compile = (db: Kysely<DB>, key: string): Kept => {
    const names = new Map<string, Placeholder>();
    const standIns = new Proxy({}, {
      get: (_target, name) => {
        if (typeof name !== 'string') return undefined;
        return names.get(name) ?? names.set(name, new Placeholder(name)).get(name);
      },
    }) as P;
    const compiled = build(db, standIns).compile();
    const slots = compiled.parameters.map((value) => (value instanceof Placeholder ? value : { value }));
    for (const placeholder of names.values()) {
      if (!slots.includes(placeholder)) {
        throw new Error(`keptQuery: '${placeholder.name}' is not a parameter of the compiled SQL; pass it to Kysely as it is, without computing with it (key ${key || 'unscoped'})`);
      }
    }
    return { compiled, slots };
  };
  return async (db, params) => {
    const adapter = db.getExecutor().adapter;
    const shapes = byDialect.get(adapter) ?? byDialect.set(adapter, new BoundedMap(SHAPES_KEPT)).get(adapter)!;
    const key = callerScopeKey();
    let kept = shapes.get(key);
    if (!kept) shapes.set(key, kept = compile(db, key));
    const parameters = kept.slots.map((slot) => (slot instanceof Placeholder ? params[slot.name] : slot.value));
    const result = await db.executeQuery<R>({ ...kept.compiled, parameters } as CompiledQuery<R>);
    return result.rows;
  };
}
