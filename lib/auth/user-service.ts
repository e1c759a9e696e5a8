import type { Output } from '../envelope/output.js';
import type { NewPassword, NewUser, TokenSubject, UserSummary } from './auth-models.js';

/** User administration, for the CLI; not exposed via REST. */
export interface IUserService {
  /** Creates the user, with `attributes` when given (written with it, or the user is not created). */
  add(user: NewUser, attributes?: Readonly<Record<string, string>>): Promise<Output<UserSummary>>;
  list(): Promise<Output<UserSummary[]>>;
  /** One user; `User_NotFound` when there is none. */
  read(userName: string): Promise<Output<UserSummary>>;
  /** The user as tokens are issued for it (with its credential stamp); `User_NotFound`, or `User_Disabled`. */
  tokenSubject(userName: string): Promise<Output<TokenSubject>>;
  /**
   * Disables the user and ends every credential it has: refresh tokens, access tokens of both variants and cookie
   * sessions. Answers false when it was disabled already.
   */
  disable(userName: string): Promise<Output<boolean>>;
  /** Lets the user log in again; credentials ended by the disable stay ended. Answers false when it was enabled. */
  enable(userName: string): Promise<Output<boolean>>;
  /** Replaces the password and ends every credential of the user, as disable does. */
  setPassword(change: NewPassword): Promise<Output>;
  /**
   * Replaces the roles and ends every credential of the user, as set-password does (they carry the old roles).
   * Answers false when the user had exactly these roles already.
   */
  setRoles(userName: string, roles: string[]): Promise<Output<boolean>>;
  /**
   * Sets one attribute (lib/auth/user-attributes.ts); the user's sessions go on, and servers see the new value within
   * `SessionRecheckSeconds`. Answers false when the user had exactly this value already; `User_NotFound`, or
   * `User_AttributeInvalid` for a key or value that cannot be stored.
   */
  setAttribute(userName: string, key: string, value: string): Promise<Output<boolean>>;
  /** Removes one attribute, seen as `setAttribute` is. Answers false when the user had no attribute of that key. */
  removeAttribute(userName: string, key: string): Promise<Output<boolean>>;
  /** Deletes the user (its attributes with it) and ends every credential it had. */
  remove(userName: string): Promise<Output>;
}
