import type { Output } from '../envelope/output.js';
import type { Credentials, LoggedInUser, UserInfo } from './auth-models.js';
import type { ILoginService } from './login-service.js';
import type { LoginThrottle, RefusalReason } from './login-throttle.js';

export type LoginOutcome = 'success' | 'invalid_credentials' | 'throttled';

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
}

/**
 * The throttle around whichever login service the application runs (the layer's or its own): a success gives its
 * points back, a failure keeps them. `count` hears every outcome (the server's login metrics).
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
    let succeeded = false;
    try {
      const output = await this.login.authenticate(credentials, type);
      succeeded = output.result !== undefined;
      this.count(succeeded ? 'success' : 'invalid_credentials');
      return { refused: false, output };
    } finally {
      await attempt.finish(succeeded);
    }
  }

  unlock(userName: string): Promise<boolean> {
    return this.throttle.unlock(userName);
  }
}
