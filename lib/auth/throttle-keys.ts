import { createHmac } from 'node:crypto';

/** What a login throttle counter counts: an account (its user key) or a client address. */
export type ThrottleSubject = 'account' | 'address';

/** The name of a counter's key in the throttle's store, for an account's user key or an address. */
export type ThrottleKeyOf = (subject: ThrottleSubject, value: string) => string;

const LABEL = 'restlayer login throttle keys v1';

/**
 * Counter keys as a keyed hash (HMAC-SHA256) of what they count, never the text itself: the account counter is named
 * by what the caller typed as a user name, and people type passwords there. Kept in clear (`login-account:<name>` in
 * Redis for up to the throttle's window) it was readable by whoever can read the store, though logs and traces keep
 * names out. `secret` is one every instance of a deployment has (the cookie keys' newest, or variant B's signing key:
 * lib/shared/shared-state.ts), so all of them, and the CLI's `user unlock`, name one account's counter alike; the
 * key derived from it (with a label of its own) keys nothing else.
 */
export function throttleKeys(secret: string): ThrottleKeyOf {
  const key = createHmac('sha256', secret).update(LABEL).digest();
  return (subject, value) => createHmac('sha256', key).update(`${subject}\u0000${value}`).digest('base64url');
}
