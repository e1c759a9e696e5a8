import { randomBytes } from 'node:crypto';
import { BoundedMap } from '../bounded-map.js';
import type { Logger } from '../log.js';
import type { IdempotencyKeyStore, StoredAnswer } from './key-store.js';
import type { ProcessIdentity } from './process-identity.js';

/** What a claim's request came to, as its key's row must say: freed (nothing was done), unknown, or its answer. */
export type Outcome = { kind: 'release' } | { kind: 'unknown' } | { kind: 'complete'; answer: StoredAnswer };

interface Pending {
  keyHash: string;
  outcome: Outcome;
  /** When the outcome was settled: a record still unwritten past the key's life is dropped (the row has expired). */
  since: number;
}

/** Pauses between attempts to write the records a store fault held back, while any are held back. */
const RETRY_MS = 250;
/** Records held back at most: past it the oldest is forgotten, and its key answers as unknown once its holder is asked. */
const MAX_PENDING = 10_000;

/**
 * The Idempotency-Key claims of this process: the requests running under one, and the outcomes a store fault kept
 * from being recorded. A create answered 503 because the store went away must free its key, but the store that
 * failed the create fails the release too; left claimed, every retry waited 30 s and answered 409, then for minutes
 * `Request_IdempotencyOutcomeUnknown`, though nothing had been saved. Here the outcome is kept and written as soon as
 * the store answers again (tried every RETRY_MS), and a repeat reaching this process writes it first.
 */
export class ClaimsInHand {
  private readonly running = new Set<string>();
  private readonly pending = new BoundedMap<string, Pending>(MAX_PENDING);
  private timer: NodeJS.Timeout | undefined;
  private heldBack = 0;

  constructor(
    private readonly store: IdempotencyKeyStore,
    private readonly identity: ProcessIdentity,
    private readonly log: Logger,
    private readonly keepMs: number,
  ) {}

  /**
   * A name for a new claim (this process's name, `#`, and a nonce), running from now on: before its insert is sent, not
   * once it is seen to have landed. Another request of this process can find the row between the two (on a pool, its
   * look may be answered before this insert's reply is read), and a claim of this process that is neither running nor
   * held back is taken for forgotten, its key marked unknown under a request that is about to run.
   */
  newClaim(): string {
    const claimedBy = `${this.identity.id}#${randomBytes(9).toString('base64url')}`;
    this.running.add(claimedBy);
    return claimedBy;
  }

  /** The claim did not take its key (another request holds it, or the store failed): its request will not run. */
  forgo(claimedBy: string): void {
    this.running.delete(claimedBy);
  }

  /**
   * Writes the claim's outcome to its key's row; when the store fails, keeps it to write later instead of failing.
   * Never rejects.
   */
  async settle(keyHash: string, claimedBy: string, outcome: Outcome, requestId?: string): Promise<void> {
    try {
      await this.write(keyHash, claimedBy, outcome);
    } catch (err) {
      this.holdBack(keyHash, claimedBy, outcome);
      this.log.warn('idempotency key not recorded yet: the store failed; written as soon as it answers', {
        requestId, outcome: outcome.kind, error: String(err),
      });
    } finally {
      this.running.delete(claimedBy);
    }
  }

  /** The claim's insert may have landed though the store failed to say so: free it once the store answers. */
  abandonClaim(keyHash: string, claimedBy: string): void {
    this.running.delete(claimedBy);
    this.holdBack(keyHash, claimedBy, { kind: 'release' });
  }

  /**
   * What this process knows of a claim a request found holding a key: another process's (`not-mine`), or one of its
   * own, running or with its outcome held back. One of its own that is neither was forgotten (past MAX_PENDING): its
   * outcome is unknown.
   */
  standing(claimedBy: string): 'not-mine' | 'running' | 'held-back' | 'forgotten' {
    if (!claimedBy.startsWith(`${this.identity.id}#`)) return 'not-mine';
    if (this.running.has(claimedBy)) return 'running';
    return this.pending.has(claimedBy) ? 'held-back' : 'forgotten';
  }

  /** Writes the held-back outcome of `claimedBy` now (a repeat asks: the store answered it). Rejects if the store fails. */
  async writeNow(claimedBy: string): Promise<void> {
    const p = this.pending.get(claimedBy);
    if (!p) return;
    await this.write(p.keyHash, claimedBy, p.outcome);
    this.written(claimedBy);
  }

  /** Whether the process that made `claimedBy` is known to have ended (another process's claim). */
  holderGone(claimedBy: string): boolean {
    const at = claimedBy.indexOf('#');
    return at > 0 && this.identity.isGone(claimedBy.slice(0, at));
  }

  private async write(keyHash: string, claimedBy: string, outcome: Outcome): Promise<void> {
    if (outcome.kind === 'release') await this.store.release(keyHash, claimedBy);
    else if (outcome.kind === 'unknown') await this.store.markUnknown(keyHash, claimedBy);
    else await this.store.complete(keyHash, claimedBy, outcome.answer);
  }

  private holdBack(keyHash: string, claimedBy: string, outcome: Outcome): void {
    this.pending.set(claimedBy, { keyHash, outcome, since: Date.now() });
    this.heldBack++;
    this.schedule();
  }

  private written(claimedBy: string): void {
    this.pending.delete(claimedBy);
    if (this.pending.size || !this.heldBack) return;
    this.log.warn('idempotency keys recorded after the store answered again', { records: this.heldBack });
    this.heldBack = 0;
  }

  private schedule(): void {
    if (this.timer || !this.pending.size) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.retry().finally(() => this.schedule());
    }, RETRY_MS);
    // Nothing to wait for at exit: a record left unwritten leaves its key to its repeats as unknown (its holder gone).
    this.timer.unref();
  }

  /** One pass over the held-back records, oldest first, until the store fails again. */
  private async retry(): Promise<void> {
    for (const [claimedBy, p] of [...this.pending]) {
      if (Date.now() - p.since > this.keepMs) {
        this.written(claimedBy);
        continue;
      }
      try {
        await this.write(p.keyHash, claimedBy, p.outcome);
      } catch {
        return;
      }
      this.written(claimedBy);
    }
  }
}
