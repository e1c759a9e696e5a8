import { LIST_OPTIONS } from '../validation/criteria.js';
import { layerRoutesDir } from '../routing/application-routes.js';
import { routePathsOf } from '../routing/load-routes.js';
import type { LayerInfrastructure } from '../create-services.js';
import type { LayerServices } from '../routing/layer-services.js';
import { LIST_CHANGE_TABLE } from '../storage/list-changes.js';
import { LEGACY_HISTORY, historyTable } from '../storage/migrations.js';

/**
 * The keys of the layer's own services (`call.services.<key>`) and of its infrastructure (once services too, and
 * names a reader of the layer takes for its own). A module providing a service key stops startup (but `login`, which
 * it may replace); the compiler checks that this lists every key of both and nothing else, so it cannot go stale.
 */
const layerServiceKeys = Object.keys({
  lookup: true, login: true, loginAttempts: true, users: true, tokens: true, health: true,
  storage: true, shared: true, metrics: true, throttle: true, cookieSessions: true, access: true,
} satisfies Record<keyof (LayerServices & LayerInfrastructure), true>);

/**
 * Why a service key (the camelCase name) is not free, if it is not. The layer checks a module's keys against the
 * services so far with `key in services`, which is true also for what every object inherits (`toString`,
 * `constructor`, `hasOwnProperty`…): such a service stops startup.
 */
export function takenServiceKey(camel: string): string | undefined {
  if (layerServiceKeys.includes(camel)) return `the key ${camel} of one of the layer's own services`;
  if (Object.getOwnPropertyNames(Object.prototype).includes(camel)) return `the key ${camel}, which every JavaScript object has (Object.prototype.${camel})`;
  return undefined;
}

/**
 * Tables the layer or the database keep for themselves, by the start of their names: the migration histories of the
 * modules (and their locks), the list change generations, the history of databases older than those, and SQLite's own
 * (it refuses `sqlite_` names to everyone else).
 */
const reservedTableStarts: [string, string][] = [
  [historyTable(''), "the layer's migration history of a module"],
  [LIST_CHANGE_TABLE, "the layer's list change generations"],
  [LEGACY_HISTORY, "the layer's migration history of older databases"],
  ['sqlite_', "SQLite's own tables"],
  // PostgreSQL looks in pg_catalog before any other schema: a table `pg_class` of ours would be read as the catalog's.
  ['pg_', "PostgreSQL's system catalogs (pg_catalog is searched first, so pg_class would be the catalog's)"],
  ['information_schema', "the SQL standard's information schema of PostgreSQL"],
];

/** Why a table name is not free, if it is not. */
export function reservedTable(table: string): string | undefined {
  return reservedTableStarts.find(([start]) => table.startsWith(start))?.[1];
}

/**
 * PostgreSQL's system columns: every table has them, so none can be a column of its own
 * (https://www.postgresql.org/docs/current/ddl-system-columns.html).
 */
const systemColumns = new Set(['tableoid', 'xmin', 'cmin', 'xmax', 'cmax', 'ctid', 'oid']);

/** Why a column name is not free, if it is not. */
export function reservedColumn(column: string): string | undefined {
  return systemColumns.has(column) ? 'a system column of every PostgreSQL table' : undefined;
}

/** The options of every list (`skip`, `take`, `cursor`…), lower case: a field of that name would be shadowed by one. */
export const listOptionNames = LIST_OPTIONS.map((name) => name.toLowerCase());

/**
 * The layer's own routes whose first path segment is `kebab` (`login-throttle` → `/login-throttle/:userName`), read from its
 * route folder, so a route the layer adds is reserved without a list to keep: a service of such a name would serve
 * its routes on top of the layer's, and the server (and `restlayer routes`) would stop at the clash.
 */
export function layerRoutesUnder(kebab: string, dir = layerRoutesDir): string[] {
  return [...new Set(routePathsOf(dir).filter((path) => path.split('/')[1] === kebab))].sort();
}
