// restlayer as it runs in production: real signing keys in the environment, NODE_ENV=production, SQLite in a temp
// folder. One seeded database (with the bench user and a long-lived token's session) is copied for each instance,
// since a restlayer process owns its SQLite file.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { cliPath, projectRoot } from './setup.js';
import { startProcess } from './processes.js';

export const benchUser = 'bench';
/** The scoped caller of the "features on" targets (issue 25): role SalesPerson, their own orders only. */
export const salesPersonUser = 'bench-sales-person';
export const benchPassword = 'bench-password-' + randomBytes(6).toString('hex');

// `build` is another checkout's CLI and root (bench/ab.js --dist-a): an older build has other migrations and finds its
// services, routes and config from its cwd, so it prepares its own database from its own checkout.
function runCli(args, env, input, { cli = cliPath, cwd = projectRoot } = {}) {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [cli, ...args], { env, cwd, timeout: 120_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`restlayer ${args.join(' ')} failed: ${err.message}\n${stderr}`));
      else resolve(stdout);
    });
    child.stdin.end(input ?? '');
  });
}

/** The environment of every restlayer process of the run (CLI and servers), on SQLite `dbPath` or `postgresUrl`. */
export function restlayerEnv(keys, dbPath, postgresUrl) {
  const env = { NODE_ENV: 'production' };
  for (const name of ['PATH', 'HOME', 'TMPDIR']) if (process.env[name]) env[name] = process.env[name];
  // RESTLAYER_BENCH_<Key> sets a restlayer setting for this run (e.g. RESTLAYER_BENCH_Storage__Sqlite__ReadWorkers=0).
  const overrides = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('RESTLAYER_BENCH_')).map(([k, v]) => [k.slice(16), v]));
  return {
    ...env,
    Authentication__Schemes__Bearer__SigningKeys__0__Issuer: 'restlayer',
    Authentication__Schemes__Bearer__SigningKeys__0__Value: keys.signing,
    Authentication__Cookie__Keys: keys.cookie,
    ...(postgresUrl ? { Storage__Provider: 'postgres', Storage__Postgres__Url: postgresUrl } : { Storage__Sqlite__Path: dbPath }),
    // Every request writes its line, as in production (pino, through its worker thread).
    Log__Level: 'info',
    // Several servers run at once; metrics (one fixed port each) are measured on their own by metrics-cost.js.
    Metrics__Port: '0',
    ...overrides,
  };
}

/**
 * Creates and seeds the base database, SQLite in `dir` or the (empty) PostgreSQL database at `postgresUrl` (the first
 * CLI call migrates it and loads the sample orders), adds the bench user, and issues an access token good for the
 * whole run (its session is in the database, so it is valid on every copy).
 */
export async function prepareRestlayer(dir, { tokenMinutes = 240, postgresUrl, cli = cliPath, cwd = projectRoot } = {}) {
  const build = { cli, cwd };
  const keys = { signing: randomBytes(32).toString('base64'), cookie: randomBytes(32).toString('base64') };
  const basePath = join(dir, 'base.db');
  const env = restlayerEnv(keys, basePath, postgresUrl);
  await runCli(['user', 'add', benchUser, '--role', 'Administrator', '--password-stdin'], env, benchPassword + '\n', build);
  // The sales person with the most orders, whose orders the scoped caller reaches (`own`: sales_person_id = theirs).
  const salesPersonId = await busiestSalesPerson(basePath, postgresUrl);
  await runCli(['user', 'add', salesPersonUser, '--role', 'SalesPerson', '--password-stdin'], env, benchPassword + '\n', build);
  await runCli(['user', 'set-attribute', salesPersonUser, 'salesPersonId', String(salesPersonId)], env, undefined, build);
  return {
    dir, keys, basePath, postgresUrl, salesPersonId, ...build,
    accessToken: await issueToken(env, tokenMinutes, benchUser, build),
    salesPersonToken: await issueToken(env, tokenMinutes, salesPersonUser, build),
  };
}

export const pgAdminUrl = process.env.RESTLAYER_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Runs one statement on the PostgreSQL server's admin database (creating and dropping scratch databases). */
export async function pgAdmin(statement) {
  const client = new pg.Client({ connectionString: pgAdminUrl });
  await client.connect();
  try {
    return await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * A scratch PostgreSQL database named for `purpose` and this process, created (a leftover of a killed run dropped
 * first): `{ url, drop }`. `drop` warns instead of failing, so a cleanup goes on.
 */
export async function scratchDatabase(purpose) {
  const name = `restlayer_${purpose}_${process.pid}`;
  const url = new URL(pgAdminUrl);
  url.pathname = `/${name}`;
  await pgAdmin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await pgAdmin(`CREATE DATABASE ${name}`);
  return {
    url: url.toString(),
    drop: () => pgAdmin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch((err) => console.warn(`bench: could not drop ${name}: ${err.message}`)),
  };
}

/** The id of the sales person with the most orders in the seeded database (read directly: no route answers it). */
async function busiestSalesPerson(basePath, postgresUrl) {
  const query = 'select sales_person_id as id, count(*) as n from sales_order where sales_person_id is not null group by sales_person_id order by n desc, id limit 1';
  if (postgresUrl) {
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    try {
      return Number((await client.query(query)).rows[0].id);
    } finally {
      await client.end();
    }
  }
  const db = new Database(basePath, { readonly: true });
  try {
    return Number(db.prepare(query).get().id);
  } finally {
    db.close();
  }
}

/** A new access token of `user` (its session in the database `env` names), good for `minutes`. */
export async function issueToken(env, minutes = 240, user = benchUser, build = {}) {
  return JSON.parse(await runCli(['token', 'issue', '--user', user, '--minutes', String(minutes), '--json'], env, undefined, build)).accessToken;
}

/** A copy of the base database for one instance (the CLI closed it, so the WAL is checkpointed, but copy it anyway). */
export function copyDatabase(prepared, name) {
  const path = join(prepared.dir, `${name}.db`);
  copyFileSync(prepared.basePath, path);
  for (const suffix of ['-wal', '-shm']) if (existsSync(prepared.basePath + suffix)) copyFileSync(prepared.basePath + suffix, path + suffix);
  return path;
}

/**
 * Starts `restlayer serve` on its own database copy (SQLite) or on the run's PostgreSQL database; `nodeFlags` go before the script (e.g. --cpu-prof), `env` adds
 * settings; the CLI and cwd are those `prepared` was made with (another checkout's for bench/ab.js --dist-a). Its log (stderr) goes to NAME.log next to the database.
 */
export function startRestlayer(prepared, name, { cpus, nodeFlags = [], env: extra = {} } = {}) {
  const dbPath = prepared.postgresUrl ? undefined : copyDatabase(prepared, name);
  const env = { ...restlayerEnv(prepared.keys, dbPath, prepared.postgresUrl), ...extra };
  return startProcess({
    name,
    nodeArgs: [...nodeFlags, prepared.cli ?? cliPath, 'serve', '--port', '0', '--host', '127.0.0.1'],
    env,
    cwd: prepared.cwd ?? projectRoot,
    cpus,
    stderrFile: join(prepared.dir, `${name}.log`),
    ready: /restlayer is serving (http:\/\/\S+)/,
  });
}

/**
 * Gives the SQLite database at `toPath` what the one at `fromPath` has more of: tables (with their rows), columns (with
 * their defaults), indexes and triggers. bench/ab.js --same-schema runs an older build on the newer build's schema, so
 * that A ÷ B measures code alone: an UPDATE's cost follows the indexes and triggers it maintains, which later
 * migrations add. Throws where SQLite cannot add a column that way (NOT NULL without a default, a generated one).
 * Returns what it changed, to print.
 */
export function alignSchema(fromPath, toPath) {
  const from = new Database(fromPath, { readonly: true });
  const to = new Database(toPath);
  const changed = [];
  try {
    const objects = (db, type) => new Map(db.prepare('select name, tbl_name, sql from sqlite_master where type = ? and sql is not null').all(type).map((o) => [o.name, o]));
    // Asked each time: a virtual table made in the loop below makes its shadow tables too.
    const hasTable = (name) => Boolean(to.prepare("select 1 from sqlite_master where type = 'table' and name = ?").get(name));
    to.transaction(() => {
      for (const [name, table] of objects(from, 'table')) {
        if (name.startsWith('sqlite_')) continue;
        if (!hasTable(name)) {
          to.exec(table.sql);
          // A full-text table (external content) is filled by its triggers, not copied.
          const rows = /^create virtual/i.test(table.sql) ? [] : from.prepare(`select * from "${name}"`).all();
          if (rows.length) {
            const columns = Object.keys(rows[0]);
            const insert = to.prepare(`insert into "${name}" (${columns.map((c) => `"${c}"`).join(', ')}) values (${columns.map(() => '?').join(', ')})`);
            for (const row of rows) insert.run(...columns.map((c) => row[c]));
          }
          changed.push(`table ${name} (${rows.length} rows)`);
          continue;
        }
        const have = new Set(to.prepare(`select name from pragma_table_info(?)`).all(name).map((c) => c.name));
        for (const c of from.prepare(`select name, type, "notnull" as required, dflt_value as dflt from pragma_table_info(?)`).all(name)) {
          if (have.has(c.name)) continue;
          to.exec(`alter table "${name}" add column "${c.name}" ${c.type}${c.required ? ' not null' : ''}${c.dflt === null ? '' : ` default ${c.dflt}`}`);
          changed.push(`column ${name}.${c.name}`);
        }
      }
      // Indexes and triggers end the same as `from`'s: a later migration may have replaced one under its old name.
      for (const type of ['index', 'trigger']) {
        const want = objects(from, type);
        for (const [name, o] of objects(to, type)) {
          if (want.get(name)?.sql === o.sql) continue;
          to.exec(`drop ${type} "${name}"`);
          changed.push(`-${type} ${name}`);
        }
        const have = objects(to, type);
        for (const [name, o] of want) {
          if (have.has(name) || !hasTable(o.tbl_name)) continue;
          to.exec(o.sql);
          changed.push(`${type} ${name}`);
        }
      }
    })();
    // Statistics for the indexes made here, as the newer build's migrations leave them.
    to.exec('analyze');
    return changed;
  } finally {
    from.close();
    to.close();
  }
}
