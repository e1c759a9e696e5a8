import type { Logger } from '../log.js';
import type { Storage } from '../storage/storage.js';
import type { AuditTables } from './audit-tables.js';

const DAY_MS = 86_400_000;
/** Entries deleted per statement: short transactions, so writers are never held up for long. */
const BATCH = 1_000;

/**
 * Deletes the entries older than `days` days (none when `days` is 0: keep forever); answers how many. Entries are
 * numbered in the order they were written, so the old ones are the lowest ids: each round reads the next BATCH ids
 * (the primary key, from where the last round ended), deletes those old enough, and the rounds stop at the first that
 * finds none. The table is never read much past the entries that go, however large it is.
 */
export async function pruneAudit(storage: Storage, days: number, now = new Date()): Promise<number> {
  if (!(days > 0)) return 0;
  const cutoff = now.getTime() - days * DAY_MS;
  const db = storage.db.withTables<AuditTables>();
  let total = 0;
  for (let after = 0; ;) {
    const batch = await db.selectFrom('audit_entry').select(['id', 'at']).where('id', '>', after).orderBy('id').limit(BATCH).execute();
    if (!batch.length) return total;
    after = batch[batch.length - 1].id;
    const old = batch.filter((r) => storage.values.toDate(r.at).getTime() < cutoff).map((r) => r.id);
    if (!old.length) return total;
    const { numDeletedRows } = await db.deleteFrom('audit_entry').where('id', 'in', old).executeTakeFirst();
    total += Number(numDeletedRows);
  }
}

export interface AuditRetention {
  /** Stops the rounds; resolves once a round under way has ended (before the store closes). */
  stop(): Promise<void>;
}

/**
 * `Audit:RetentionDays`: prunes once at startup and then every day, in the background (a failure is logged and the
 * next round tries again). Every process of a deployment may run it: the rounds delete the same old rows, in batches.
 */
export function startAuditRetention(storage: Storage, days: number, log: Logger, everyMs = DAY_MS): AuditRetention {
  if (!(days > 0)) return { stop: async () => {} };
  let running: Promise<void> | undefined;
  const round = () => {
    running ??= pruneAudit(storage, days)
      .then((pruned) => {
        if (pruned) log.info('audit entries pruned', { pruned, retentionDays: days });
      }, (err: unknown) => log.warn('audit retention failed', { error: String(err) }))
      .finally(() => (running = undefined));
  };
  round();
  const timer = setInterval(round, everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
