import type { Output } from '../envelope/output.js';
import type { Credentials, LoggedInUser, UserInfo } from './auth-models.js';

/**
 * Checks credentials. Same answer (and comparable cost) for an unknown user and a wrong password. The stamp comes
 * from the same read as the password hash, so a password changed meanwhile ends what this login issues.
 */
export interface ILoginService {
  authenticate(credentials: Credentials, authenticationType: UserInfo['authenticationType']): Promise<Output<LoggedInUser>>;
}
