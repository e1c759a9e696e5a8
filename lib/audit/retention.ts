import type { Logger } from '../log.js';
import type { Storage } from '../storage/storage.js';
import type { AuditTables } from './audit-tables.js';

const DAY_MS = 86_400_000;
/** Entries deleted per statement: short transactions, so writers are never held up for long. */
const BATCH = 1_000;

/**
 * Deletes the entries older than `days` days (none when `days` is 0: keep forever); answers how many. Entries are
 * numbered in the order they were written, so the oldest are the lowest ids: each round looks at the next BATCH ids
 * from the start of the table (the primary key, no scan) and deletes those of them that are old enough, and stops at
 * the first round that finds a younger one. The table is never read past the entries that go.
 */
export async function pruneAudit(storage: Storage, days: number, now = new Date()): Promise<number> {
  if (!(days > 0)) return 0;
  const cutoff = new Date(now.getTime() - days * DAY_MS).toISOString();
  const db = storage.db.withTables<AuditTables>();
  let total = 0;
  for (;;) {
    const oldest = db.selectFrom('audit_entry').select('id').orderBy('id').limit(BATCH);
    const { numDeletedRows } = await db.deleteFrom('audit_entry')
      .where('id', 'in', oldest)
      .where('at', '<', cutoff)
      .executeTakeFirst();
    total += Number(numDeletedRows);
    if (Number(numDeletedRows) < BATCH) return total;
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
