import type { Transaction } from 'kysely';
import type { StorageDialect } from '../storage/dialects/dialect.js';
import type { Tables } from '../storage/tables.js';

/**
 * Where writers run side by side (the dialect's `locksRows`: PostgreSQL), locks every refresh token of one user (or
 * of all users, with null) with its session, the rows a refresh locks (it selects token joined with session FOR
 * UPDATE), in the same order. A transaction that then deletes them (`token rotate`, `user remove`) waits for
 * refreshes in flight and sees the successor they commit, instead of missing it; and as both lock in one order,
 * neither waits on the other in a cycle (a deadlock). SQLite serialises writers, so nothing is needed there.
 */
export async function lockRefreshTokens(trx: Transaction<Tables>, dialect: StorageDialect, userKey: string | null): Promise<void> {
  if (!dialect.locksRows) return;
  await trx.selectFrom('refresh_token as t')
    .innerJoin('auth_session as s', 's.session_id', 't.session_id')
    .select('t.token_hash')
    .$if(userKey !== null, (q) => q.where('s.user_key', '=', userKey!))
    .forUpdate()
    .execute();
}
