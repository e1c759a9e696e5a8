import type { Output } from '../envelope/output.js';
import type { Credentials, UserInfo } from './auth-models.js';

/** Checks credentials. Same answer (and comparable cost) for an unknown user and a wrong password. */
export interface ILoginService {
  authenticate(credentials: Credentials, authenticationType: UserInfo['authenticationType']): Promise<Output<UserInfo>>;
}
