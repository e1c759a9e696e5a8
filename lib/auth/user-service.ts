import type { Output } from '../envelope/output.js';
import type { NewUser, UserSummary } from './auth-models.js';

/** User administration, for the CLI; not exposed via REST. */
export interface IUserService {
  add(user: NewUser): Promise<Output<UserSummary>>;
  list(): Promise<Output<UserSummary[]>>;
  /** One user; `User_NotFound` when there is none. */
  read(userName: string): Promise<Output<UserSummary>>;
  /** Disables the user and ends every session it has: refresh tokens, access tokens and cookie sessions. */
  disable(userName: string): Promise<Output>;
}
