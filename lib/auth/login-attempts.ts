import type { Output } from '../envelope/output.js';
import { infrastructureFault } from '../storage/store-faults.js';
import type { Credentials, LoggedInUser, UserInfo } from './auth-models.js';
import type { ILoginService } from './login-service.js';
import type { LoginThrottle, RefusalReason } from './login-throttle.js';

/** `unavailable`: the check could not finish (a store it reads failed); the login answered 503 and counted nothing. */
export type LoginOutcome = 'success' | 'invalid_credentials' | 'throttled' | 'unavailable';

/** A login as the throttle lets it through: refused before the check, or checked. */
export type AttemptResult =
  | { refused: true; reason: RefusalReason; retryAfter: number }
  | { refused: false; output: Output<LoggedInUser> };

/** Logins under the throttle: what the login routes and `restlayer user unlock` use. */
export interface ILoginAttempts {
  /** Reserves an attempt (refused at once past the limits), checks the credentials, then settles the reservation. */
  attempt(credentials: Credentials, type: UserInfo['authenticationType'], clientAddress: string): Promise<AttemptResult>;
  /** Forgets the account's counted failures; answers whether there were any. */
  unlock(userName: string): Promise<boolean>;
  /** Forgets the failures counted against a client address (everyone behind it); answers whether there were any. */
  unlockAddress(address: string): Promise<boolean>;
}

/**
 * The throttle around whichever login service the application runs (the layer's or its own): a success gives its
 * points back, a failure keeps them. A check that never finished (the login service met a store fault: the user could
 * not be read while the database was unreachable) gives them back too: it tried no password, and kept,
 * its points would lock out the account and, after `AddressFailures`, everyone behind the address for a whole window
 * for an outage of seconds. `count` hears every outcome (the server's login metrics).
 */
export class LoginAttempts implements ILoginAttempts {
  constructor(
    private readonly throttle: LoginThrottle,
    private readonly login: ILoginService,
    private readonly count: (outcome: LoginOutcome) => void,
  ) {}

  async attempt(credentials: Credentials, type: UserInfo['authenticationType'], clientAddress: string): Promise<AttemptResult> {
    const attempt = await this.throttle.reserve(credentials.userName, clientAddress);
    if (!attempt.allowed) {
      this.count('throttled');
      return { refused: true, reason: attempt.reason, retryAfter: attempt.retryAfter };
    }
    let checked: 'success' | 'failure' | 'unfinished' = 'failure';
    try {
      const output = await this.login.authenticate(credentials, type);
      checked = output.result !== undefined ? 'success' : 'failure';
      this.count(checked === 'success' ? 'success' : 'invalid_credentials');
      return { refused: false, output };
    } catch (err) {
      // A store fault ends the check without a verdict: the caller gets 503 and learns nothing of the password, so
      // it was no guess. Anything else (a defect of a login service) keeps the points, the safe side.
      if (infrastructureFault(err)) {
        checked = 'unfinished';
        this.count('unavailable');
      }
      throw err;
    } finally {
      await attempt.finish(checked);
    }
  }

  unlock(userName: string): Promise<boolean> {
    return this.throttle.unlock(userName);
  }

  unlockAddress(address: string): Promise<boolean> {
    return this.throttle.unlockAddress(address);
  }
}
