import type pgModule from 'pg';
import { requireOptional } from '../optional-package.js';

type Pg = typeof pgModule;
let loaded: Pg | undefined;

/**
 * The PostgreSQL driver (the optional peer dependency `pg`), loaded when a PostgreSQL store is first opened: a project
 * on SQLite never installs or loads it.
 */
export function pgDriver(): Pg {
  if (!loaded) {
    const pg = requireOptional<Pg>('pg', 'Storage:Provider postgres');
    // COUNT(*) is int8, which pg returns as a string by default; counts here always fit a JavaScript number.
    pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
    loaded = pg;
  }
  return loaded;
}

/** Whether `err` is an error the PostgreSQL server answered (none can be, while no PostgreSQL store was opened). */
export function isPgServerError(err: unknown): err is pgModule.DatabaseError {
  return loaded !== undefined && err instanceof loaded.DatabaseError;
}
