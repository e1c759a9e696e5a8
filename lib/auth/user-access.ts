import { type Credential, credentialAllowed } from './credential-stamp.js';
import { BoundedMap } from '../bounded-map.js';
import type { UserAttributes } from './user-attributes.js';
import type { AccessState, UserStore } from './user-store.js';

/** What the check of a caller found: whether its credential may be used, and the user's attributes. */
export interface CallerCheck {
  allowed: boolean;
  /** The user's attributes as the store had them (none for a user this server does not know). */
  attributes: UserAttributes;
}

/** Whether a user's credentials (tokens of both variants, cookie sessions) may still be used. */
export interface IUserAccess {
  /** Runs on every secured call, so an answer already known comes back as is, not as a promise. */
  allows(userName: string, credential: Credential): boolean | Promise<boolean>;
  /** `allows`, with the user's attributes read (and cached) together with its credential state. */
  check(userName: string, credential: Credential): CallerCheck | Promise<CallerCheck>;
  /** The user's credentials or attributes just changed in this process: what is known of it is forgotten. */
  changed(userName: string): void;
}

/** How many users' states are remembered. */
const USER_CACHE_SIZE = 10_000;

const verdict = (known: AccessState, credential: Credential): CallerCheck =>
  ({ allowed: credentialAllowed(known.state, credential), attributes: known.attributes });

/**
 * The per-user check, cached like the session check: a state read from the store is trusted for
 * `recheckSeconds`, because another process (`restlayer user disable`, `user set-attribute`, another instance) may
 * change the user at any moment; changes made in this process are seen at once. The user's attributes are read in
 * the same query and trusted for the same time, so a cached caller costs no query at all. Keys are the names as
 * callers send them (no normalising on the hot path); one user may so have several entries, which `changed` clears
 * together.
 */
export class UserAccess implements IUserAccess {
  private readonly known = new BoundedMap<string, { access: AccessState; readAt: number; trustedUntil: number }>(USER_CACHE_SIZE);

  /** Counts `changed` calls: a read that started before one must not refill the cache after it. */
  private changes = 0;

  constructor(private readonly users: UserStore, private readonly recheckSeconds: number) {}

  allows(userName: string, credential: Credential): boolean | Promise<boolean> {
    const checked = this.check(userName, credential);
    return checked instanceof Promise ? checked.then((c) => c.allowed) : checked.allowed;
  }

  check(userName: string, credential: Credential): CallerCheck | Promise<CallerCheck> {
    const entry = this.known.get(userName);
    if (entry !== undefined && Date.now() < entry.trustedUntil) {
      const cached = verdict(entry.access, credential);
      // A refusal of a credential issued after the state was read (to the second: a token's iat is in seconds) is not
      // the cache's to give: the user may have been added again, enabled or given a new password by another process
      // since (a login right after `restlayer user add` was refused for up to SessionRecheckSeconds). The store decides.
      if (cached.allowed || credential.issuedAtMs === undefined || credential.issuedAtMs < entry.readAt - 1000) return cached;
    }
    return this.read(userName).then((access) => verdict(access, credential));
  }

  changed(_userName: string): void {
    // Which entries are this user's (its names in any case or form) is not known here; changes are rare.
    this.changes++;
    this.known.clear();
  }

  private async read(userName: string): Promise<AccessState> {
    const changesBefore = this.changes;
    // The trust window counts from before the read: the store's answer may be that old when it arrives.
    const asked = Date.now();
    const access = await this.users.accessState(userName);
    if (this.recheckSeconds > 0 && this.changes === changesBefore) {
      this.known.set(userName, { access, readAt: asked, trustedUntil: asked + this.recheckSeconds * 1000 });
    }
    return access;
  }
}
