import type { Infer } from 'superstruct';
import { array, model, oneOf, optional, text } from '../validation/fields.js';

/**
 * The authenticated user as the login routes answer it. `permissions`: every permission name of the server the user's
 * roles grant (wildcards expanded, sorted), so a browser app offers only what the user may do. `tenantId`: the
 * caller's tenant (contract part 12), present only when `Tenancy:Enabled` and the caller has one.
 */
export const UserInfo = model({
  userName: text(), name: text(), roles: array(text()), permissions: array(text()), authenticationType: oneOf(['Cookies', 'Bearer']),
  tenantId: optional(text()),
});
export type UserInfo = Infer<typeof UserInfo>;

/**
 * A user as tokens and cookie sessions are issued for: with the credential stamp its password (or the tool issuing
 * for it) was checked against. The stamp is never part of an answer; tokens carry it as the `stamp` claim.
 */
export interface TokenSubject {
  userName: string;
  name: string;
  roles: string[];
  stamp: string;
  /** The user's attribute `tenantId` when issued: its tokens carry it as `tid`. */
  tenantId?: string;
}

/** What a successful login checked: the user (the routes add the permissions of the server's roles), and its stamp. */
export interface LoggedInUser extends Omit<UserInfo, 'permissions'> {
  stamp: string;
}

/** What `/auth/jwt` and `/auth/refresh` answer. */
export const AuthToken = model({ accessToken: text(), refreshToken: text() });
export type AuthToken = Infer<typeof AuthToken>;

export const Credentials = model({ userName: text({ min: 1, max: 100 }), password: text({ min: 1, max: 1024 }) });
export type Credentials = Infer<typeof Credentials>;

export const RefreshInput = model({ accessToken: text({ min: 1, max: 8192 }), refreshToken: text({ min: 1, max: 512 }) });
export type RefreshInput = Infer<typeof RefreshInput>;

export const NewUser = model({
  userName: text({ min: 1, max: 100 }),
  name: optional(text({ max: 200 })),
  roles: array(text({ min: 1, max: 100 })),
  password: text({ min: 8, max: 1024 }),
});
export type NewUser = Infer<typeof NewUser>;

export const NewRoles = model({ userName: text({ min: 1, max: 100 }), roles: array(text({ min: 1, max: 100 })) });
export type NewRoles = Infer<typeof NewRoles>;

export const NewPassword = model({ userName: text({ min: 1, max: 100 }), password: text({ min: 8, max: 1024 }) });
export type NewPassword = Infer<typeof NewPassword>;

export interface UserSummary {
  userName: string;
  name: string;
  roles: string[];
  disabled: boolean;
  createdDate: Date;
  /** Keys in order; `{}` when the user has none. */
  attributes: Readonly<Record<string, string>>;
}

