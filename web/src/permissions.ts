import type { UserInfo } from 'restlayer/client';

/**
 * What the logged-in user may do: the `permissions` of the session's UserInfo (every permission name the user holds,
 * wildcards expanded). The screens offer only what these allow; the server still checks every call, and a 403 that
 * happens anyway (the user's roles changed meanwhile) shows the server's message like any other refusal.
 */
let held: ReadonlySet<string> = new Set();

/** Takes the permissions of a login or of the session the app resumed; none when there is no session. */
export function setPermissions(user: Pick<UserInfo, 'permissions'> | undefined): void {
  held = new Set(user?.permissions ?? []);
}

/** Whether the user holds a permission, e.g. `sales-order.update`. */
export const can = (permission: string): boolean => held.has(permission);
