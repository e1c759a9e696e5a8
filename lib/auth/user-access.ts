import { type Credential, type CredentialState, credentialAllowed } from './credential-stamp.js';
import { BoundedMap } from '../bounded-map.js';
import type { UserStore } from './user-store.js';

/** Whether a user's credentials (tokens of both variants, cookie sessions) may still be used. */
export interface IUserAccess {
  /** Runs on every secured call, so an answer already known comes back as is, not as a promise. */
  allows(userName: string, credential: Credential): boolean | Promise<boolean>;
  /** The user's credentials just ended (or it was re-enabled) in this process: what is known of it is forgotten. */
  changed(userName: string): void;
}

/** How many users' states are remembered. */
const USER_CACHE_SIZE = 10_000;

/**
 * The per-user check, cached like the session check: a state read from the store is trusted for
 * `recheckSeconds`, because another process (`restlayer user disable`, another instance) may end the user's
 * credentials at any moment; changes made in this process are seen at once. Keys are the names as callers send them
 * (no normalising on the hot path); one user may so have several entries, which `changed` clears together.
 */
export class UserAccess implements IUserAccess {
  private readonly known = new BoundedMap<string, { state: CredentialState; trustedUntil: number }>(USER_CACHE_SIZE);

  /** Counts `changed` calls: a read that started before one must not refill the cache after it. */
  private changes = 0;

  constructor(private readonly users: UserStore, private readonly recheckSeconds: number) {}

  allows(userName: string, credential: Credential): boolean | Promise<boolean> {
    const entry = this.known.get(userName);
    if (entry !== undefined && Date.now() < entry.trustedUntil) return credentialAllowed(entry.state, credential);
    return this.read(userName).then((state) => credentialAllowed(state, credential));
  }

  changed(_userName: string): void {
    // Which entries are this user's (its names in any case or form) is not known here; ends are rare.
    this.changes++;
    this.known.clear();
  }

  private async read(userName: string): Promise<CredentialState> {
    const changesBefore = this.changes;
    // The trust window counts from before the read: the store's answer may be that old when it arrives.
    const asked = Date.now();
    const state = await this.users.credentialState(userName);
    if (this.recheckSeconds > 0 && this.changes === changesBefore) {
      this.known.set(userName, { state, trustedUntil: asked + this.recheckSeconds * 1000 });
    }
    return state;
  }
}
