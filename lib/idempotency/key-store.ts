import type { Kysely } from 'kysely';
import type { Storage } from '../storage/storage.js';
import type { Tables } from '../storage/tables.js';

export interface IdempotencyKeyTable {
  key_hash: string;
  fingerprint: string;
  /** Null while the first request runs; 0 when its outcome is unknown; else the status it answered. */
  status: number | null;
  location: string | null;
  body: string | null;
  created_ms: number;
  expires_ms: number;
  /**
   * Which request holds the key: the claiming process's name (process-identity.ts) and `#` and a claim nonce. Null in
   * rows claimed before the column existed.
   */
  claimed_by: string | null;
  /** The language of the kept answer's message texts; null without messages, and in rows older than the column. */
  language: string | null;
}

type IdempotencyTables = {
  idempotency_key: IdempotencyKeyTable;
};

/** What a repeated request answers: the first one's status, Location, envelope text and its messages' language. */
export interface StoredAnswer {
  status: number;
  location?: string;
  body: string;
  language?: string;
}

/** Where a key stands when a request presents it. */
export type KeyState =
  | { state: 'claimed' }
  | { state: 'mismatch' }
  /** `claimedBy`: the claim of the request that holds it (null for a row claimed before claims were named). */
  | { state: 'running'; claimedBy: string | null }
  | { state: 'unknown' }
  | { state: 'done'; answer: StoredAnswer };

export interface KeyStoreOptions {
  /** How long a key is remembered (24 h by the contract; shorter in tests). */
  keepMs: number;
  /** A reservation still running after this long belongs to a request that died (a crash or restart). */
  staleMs: number;
  now?: () => number;
}

/** How many expired keys one cleanup removes: it runs beside requests, so its cost stays small. */
const PURGE_BATCH = 500;

/**
 * The Idempotency-Key records, in the application's database (every worker and instance sees the same rows). A key is
 * claimed by a unique insert, so of requests arriving together exactly one runs; the others find its row.
 */
export class IdempotencyKeyStore {
  private readonly db: Kysely<Tables & IdempotencyTables>;
  private readonly now: () => number;

  constructor(storage: Storage, private readonly options: KeyStoreOptions) {
    this.db = storage.db.withTables<IdempotencyTables>();
    this.now = options.now ?? Date.now;
  }

  /**
   * Claims the key for this request, named `claimedBy` (a name no other claim has), or answers where the request that
   * holds it stands. When this fails, the insert may still have landed: `release(keyHash, claimedBy)` frees it.
   */
  async claim(keyHash: string, fingerprint: string, claimedBy: string): Promise<KeyState> {
    // Twice at most: the second time after removing an expired row that held the key.
    for (let attempt = 0; attempt < 2; attempt++) {
      const now = this.now();
      const inserted = await this.db.insertInto('idempotency_key')
        .values({ key_hash: keyHash, fingerprint, status: null, location: null, body: null, created_ms: now, expires_ms: now + this.options.keepMs, claimed_by: claimedBy })
        .onConflict((oc) => oc.column('key_hash').doNothing())
        .returning('key_hash')
        .executeTakeFirst();
      if (inserted) return { state: 'claimed' };
      const found = await this.look(keyHash, fingerprint);
      if (found) return found;
      await this.db.deleteFrom('idempotency_key').where('key_hash', '=', keyHash).where('expires_ms', '<=', now).execute();
    }
    // Only a row expiring and reappearing between two statements gets here: treat it as still running.
    return { state: 'running', claimedBy: null };
  }

  /** Where the request holding the key stands; undefined when no live row holds it. */
  async look(keyHash: string, fingerprint: string): Promise<KeyState | undefined> {
    const row = await this.db.selectFrom('idempotency_key').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
    const now = this.now();
    if (!row || Number(row.expires_ms) <= now) return undefined;
    if (row.fingerprint !== fingerprint) return { state: 'mismatch' };
    if (row.status === null) return Number(row.created_ms) + this.options.staleMs <= now ? { state: 'unknown' } : { state: 'running', claimedBy: row.claimed_by };
    if (row.status === 0) return { state: 'unknown' };
    return { state: 'done', answer: { status: row.status, body: row.body ?? '', ...(row.location ? { location: row.location } : {}), ...(row.language ? { language: row.language } : {}) } };
  }

  /** Records the answer a repeat of the request gets (only while the claim `claimedBy` holds the key). */
  async complete(keyHash: string, claimedBy: string, answer: StoredAnswer): Promise<void> {
    await this.db.updateTable('idempotency_key')
      .set({ status: answer.status, location: answer.location ?? null, body: answer.body, language: answer.language ?? null })
      .where('key_hash', '=', keyHash)
      .where('claimed_by', '=', claimedBy)
      .where('status', 'is', null)
      .execute();
  }

  /**
   * The request of the claim `claimedBy` may or may not have saved its work: a repeat must not run it again, nor claim
   * to know. Also said of a claim whose process is gone (it can never record its answer).
   */
  async markUnknown(keyHash: string, claimedBy: string): Promise<void> {
    await this.db.updateTable('idempotency_key').set({ status: 0 })
      .where('key_hash', '=', keyHash).where('claimed_by', '=', claimedBy).where('status', 'is', null)
      .execute();
  }

  /** Frees the key held by the claim `claimedBy`: nothing was done, so a repeat runs the request afresh. */
  async release(keyHash: string, claimedBy: string): Promise<void> {
    await this.db.deleteFrom('idempotency_key')
      .where('key_hash', '=', keyHash).where('claimed_by', '=', claimedBy).where('status', 'is', null)
      .execute();
  }

  /** Removes up to a batch of expired keys; answers how many. */
  async purgeExpired(): Promise<number> {
    const expired = this.db.selectFrom('idempotency_key').select('key_hash').where('expires_ms', '<=', this.now()).limit(PURGE_BATCH);
    const result = await this.db.deleteFrom('idempotency_key').where('key_hash', 'in', expired).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
