import { type RequestAccess, setAccess, withErrorScope } from '../envelope/request-scope.js';

/** Who `asCaller` runs as: the route's permission's scopes and the user's attributes (the rest as an unlimited caller's). */
export interface CallerAccess {
  userName?: string;
  attributes?: Readonly<Record<string, string>>;
  permission?: string;
  /** The scopes limiting the permission (undefined: not limited). */
  scopes?: readonly string[];
  /** With tenancy on, the caller's tenant (null: none); undefined: tenancy off. */
  tenant?: string | null;
}

/**
 * Runs `fn` as a request of a caller with `caller`'s access would, without HTTP: what a service reads, or the SQL a
 * list builds (listSql), under that caller's record scopes. For tests of a scope's SQL and plans; the HTTP tests
 * remain the proof of what callers get.
 */
export function asCaller<T>(caller: CallerAccess, fn: () => Promise<T> | T): Promise<T> {
  const access: RequestAccess = {
    userName: caller.userName,
    attributes: caller.attributes ?? {},
    permission: caller.permission,
    scopes: caller.scopes,
    ...(caller.tenant !== undefined ? { tenant: caller.tenant } : {}),
    holds: (permission) => permission === caller.permission,
    scopesOf: (permission) => (permission === caller.permission ? caller.scopes : undefined),
  };
  return withErrorScope(async () => {
    setAccess(access);
    return fn();
  });
}
