import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { freePort } from '../support/http.js';
import { type ServeProcess, killChildren, sqliteServeEnv, startServe } from '../support/processes.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';
import { mint, newKey } from '../support/tokens.js';
import { until } from '../support/wait.js';
import { type FaultRig, type RigOptions, startRig, stopRig } from './fault-harness.js';

/**
 * A `serve --workers 2` deployment on either store, with one way to make its store fail for writes and mend it again,
 * for the fault scenarios that must hold on both: PostgreSQL behind the rig's proxy (refused connections), or an
 * SQLite file whose write lock another process holds (writes wait their 5 s bound, then answer 503).
 */
export interface Stand {
  store: 'postgres' | 'sqlite';
  server: ServeProcess;
  /** The server's base URL. */
  url: string;
  /** An Administrator's bearer token. */
  token: string;
  /** From now on writes fail (503 Storage_Unavailable). */
  breakStore(): Promise<void>;
  /** Writes work again. */
  mendStore(): Promise<void>;
  /** How many sales orders carry this comment, read from the store directly. */
  ordersWith(comment: string): Promise<number>;
  /** The PostgreSQL rig (proxies and all), on PostgreSQL. */
  rig?: FaultRig;
  /** The database file, on SQLite. */
  file?: string;
  stop(): Promise<void>;
}

/** Waits until both workers serve: a test that kills one must leave the other serving. */
const bothWorkers = (server: ServeProcess) =>
  until(() => (server.stderr().match(/restlayer listening on/g) ?? []).length >= 2, 'both workers serving', 60_000);

export async function postgresStand(options: RigOptions = {}): Promise<Stand> {
  // At info, so that each worker's "listening" line shows.
  const rig = await startRig({ ...options, env: { Log__Level: 'info', ...options.env } });
  await bothWorkers(rig.server);
  // Two connections for every check (opened when first asked): a test checks many writes at once, and a connection each
  // opened dozens beside the suites running alongside on the same PostgreSQL (its max_connections is 100).
  const checks = new pg.Pool({ connectionString: rig.directUrl, max: 2 });
  return {
    store: 'postgres', rig, server: rig.server, url: rig.server.url, token: rig.token,
    breakStore: () => rig.pg.mode('refuse'),
    mendStore: () => rig.pg.mode('pass'),
    async ordersWith(comment) {
      return Number((await checks.query<{ n: string }>('select count(*) as n from sales_order where comment = $1', [comment])).rows[0].n);
    },
    async stop() {
      await checks.end();
      await stopRig(rig);
    },
  };
}

export async function sqliteStand(options: { cli?: string; env?: Record<string, string> } = {}): Promise<Stand> {
  const dir = makeTempDir('restlayer-fault-stand-');
  const db = join(dir, 'stand.db');
  const key = newKey();
  // A fixed port: a worker that dies is replaced on the same one.
  const server = await startServe(['--workers', '2', '--host', '127.0.0.1', '--port', String(await freePort())], {
    cli: options.cli,
    env: sqliteServeEnv(db, key, { Log__Level: 'info', Server__WorkerRestartMilliseconds: '50', ...options.env }),
  });
  await bothWorkers(server);
  let locker: Database.Database | undefined;
  return {
    store: 'sqlite', server, url: server.url, token: mint({ key, issuer: 'restlayer', audience: 'restlayer' }), file: db,
    async breakStore() {
      locker = new Database(db);
      locker.exec('begin immediate');
    },
    async mendStore() {
      locker?.exec('rollback');
      locker?.close();
      locker = undefined;
    },
    async ordersWith(comment) {
      const reader = new Database(db, { readonly: true });
      try {
        return (reader.prepare('select count(*) as n from sales_order where comment = ?').get(comment) as { n: number }).n;
      } finally {
        reader.close();
      }
    },
    async stop() {
      locker?.close();
      await killChildren();
      removeTempDirs();
    },
  };
}

/** The stand of `store`, or the reason its services are missing (the suite skips then). */
export const stands = { postgres: postgresStand, sqlite: sqliteStand };
