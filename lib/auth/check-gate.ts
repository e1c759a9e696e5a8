/**
 * How many logins one process has in hand at once: those whose password check runs plus at most `maxWaiting` more.
 * A login past that is refused at once rather than queued, because a queue of slow scrypt checks makes every login
 * behind it wait (a good login took 4.7 s behind 30 bad ones) while the bad ones cost the same anyway.
 * Per process, not shared: the checks run on this process's own thread pool.
 */
export class CheckGate {
  private inHand = 0;
  readonly capacity: number;

  constructor(running: number, maxWaiting: number) {
    this.capacity = running + maxWaiting;
  }

  /** Takes a place, or answers false when all are taken. Synchronous, so two logins can never both take the last one. */
  tryEnter(): boolean {
    if (this.inHand >= this.capacity) return false;
    this.inHand++;
    return true;
  }

  leave(): void {
    this.inHand--;
  }
}
