import { sql } from 'kysely';
import { Output, model, text } from 'restlayer';
import { probeRoute } from '../../probe-store-module.js';

/** Slow reads this process has begun (the test waits for one before it sends its cheap requests). */
let started = 0;

/**
 * Test-only routes (served with `startTestServer({ routesDir: slowReadRoutesDir })`) that read through
 * `storage.reader`, for the tests of issue 15 (no query stalls the server):
 *
 * - `GET /slow-read/slow`: a query of several seconds (SQLite: a recursive CTE counting to 2e8, about 25 s on one
 *   core; PostgreSQL: pg_sleep(30)), well past the Storage:QueryTimeoutSeconds the tests set.
 * - `GET /slow-read/endless`: the same for hours (SQLite: counting to 1e11): it ends only when stopped.
 * - `GET /slow-read/started`: how many slow reads have begun.
 * - `GET /slow-read/fast`: the number of users, through the reader and through `db`.
 * - `GET /slow-read/budgeted-slow` and `budgeted-fast`: a count to 2e8 or to 1,000 carrying the main thread's budget term
 *   (lib/storage/sqlite-read-budget.ts), as list queries do.
 */
export const GET = probeRoute({
  summary: 'Test reads through storage.reader.',
  anonymous: true,
  params: model({ kind: text({ min: 1 }) }),
  async handle({ params, services, server }): Promise<Output<unknown>> {
    const { reader, db } = services.probeStorage;
    switch (params.kind) {
      case 'slow':
      case 'endless': {
        started++;
        const upTo = params.kind === 'slow' ? 200_000_000 : 100_000_000_000;
        const slow = server.config.Storage.Provider === 'postgres'
          ? sql<{ n: number }>`select 1 as n from pg_sleep(${params.kind === 'slow' ? 30 : 3600})`
          : sql<{ n: number }>`with recursive c(x) as (select 1 union all select x + 1 from c where x < ${sql.lit(upTo)}) select count(*) as n from c`;
        return Output.of((await slow.execute(reader)).rows);
      }
      case 'budgeted-slow':
      case 'budgeted-fast': {
        // Carries the main thread's budget term, as a list query does: the slow one overruns it.
        const upTo = params.kind === 'budgeted-slow' ? 200_000_000 : 1_000;
        const counted = sql<{ n: number }>`with recursive c(x) as (select 1 union all select x + 1 from c where ${sql.join([sql`x < ${sql.lit(upTo)}`, ...services.probeStorage.values.readBudget], sql` and `)})
          select count(*) as n from c`;
        return Output.of((await counted.execute(reader)).rows);
      }
      case 'started':
        return Output.of({ started });
      default: {
        const count = sql<{ n: number }>`select count(*) as n from app_user`;
        return Output.of({ reader: (await count.execute(reader)).rows[0].n, db: (await count.execute(db)).rows[0].n });
      }
    }
  },
});
