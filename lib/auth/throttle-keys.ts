import { createHmac } from 'node:crypto';
import { isIPv6 } from 'node:net';

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

/**
 * One spelling of a client address, so that its counter is the same whoever names it: an IPv4 address seen on a
 * dual-stack socket (`::ffff:203.0.113.7`) is the IPv4 address, and IPv6 is written as its canonical text (lower
 * case, zeros compressed), which is also what an operator types to `restlayer user unlock-address`. Anything else
 * (an X-Forwarded-For entry that is no address) is kept as given.
 */
export function canonicalAddress(address: string): string {
  const trimmed = address.trim();
  if (!isIPv6(trimmed)) return trimmed;
  const canonical = new URL(`http://[${trimmed}]/`).hostname.slice(1, -1);
  // The URL parser writes an IPv4-mapped address in hexadecimal (::ffff:cb00:7107): back to its dotted IPv4.
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (!mapped) return canonical;
  const [high, low] = [parseInt(mapped[1], 16), parseInt(mapped[2], 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}
