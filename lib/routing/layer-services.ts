import type { ILoginAttempts } from '../auth/login-attempts.js';
import type { ILoginService } from '../auth/login-service.js';
import type { ITokenService } from '../auth/token-service.js';
import type { IUserService } from '../auth/user-service.js';
import type { ILookupService } from '../lookup/lookup-service.js';
import type { IHealthService } from '../shared/health.js';

/**
 * The services of the layer itself, which every application has and its routes reach as `call.services`: lookups,
 * login, users, tokens, login throttling and health. Infrastructure (the store, shared state, metrics, cookie
 * sessions) is not among them: a module's `create` gets the store, and middleware get what they need as arguments.
 */
export interface LayerServices {
  lookup: ILookupService;
  /** Checks credentials; an application module may provide its own `login` instead of the layer's. */
  login: ILoginService;
  /** Logins under the throttle, around whichever `login` runs. */
  loginAttempts: ILoginAttempts;
  users: IUserService;
  tokens: ITokenService;
  health: IHealthService;
}
