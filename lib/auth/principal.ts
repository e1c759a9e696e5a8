import { NO_ATTRIBUTES, type UserAttributes } from './user-attributes.js';

/** Who is calling. Built from token claims or from the cookie session. */
export interface Principal {
  userName: string;
  name: string;
  roles: string[];
  authenticationType: 'Bearer' | 'Cookies';
  /** The login session a refresh token belongs to (variant A). */
  sessionId?: string;
  /**
   * The user's attributes (`restlayer user set-attribute`), e.g. `salesPersonId` for a record scope. Read from the
   * store with the user's credential state, not from the token or cookie, so a change applies within
   * `SessionRecheckSeconds`; empty for a user the server does not know (a token minted elsewhere).
   */
  attributes: UserAttributes;
  /**
   * The caller's tenant (contract part 12): a token's `tid` claim (the user's attribute `tenantId` when this server
   * issued it, at login or refresh), a cookie session's at login. Undefined: none.
   */
  tenantId?: string;
}

const dotnetRoleClaim = 'http://schemas.microsoft.com/ws/2008/06/identity/claims/role';
const dotnetNameClaim = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name';

export interface TokenClaims {
  sub?: string;
  name?: string;
  unique_name?: string;
  role?: string | string[];
  sid?: string;
  [claim: string]: unknown;
}

const asList = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : []);

/** Reads the claims our own tokens carry and those `dotnet user-jwts` writes. */
export function principalFromClaims(claims: TokenClaims): Principal | undefined {
  const userName = claims.sub ?? claims.unique_name ?? (claims[dotnetNameClaim] as string | undefined) ?? claims.name;
  if (typeof userName !== 'string' || !userName) return undefined;
  const principal: Principal = {
    userName,
    name: typeof claims.name === 'string' ? claims.name : userName,
    roles: [...new Set([...asList(claims.role), ...asList(claims.roles), ...asList(claims[dotnetRoleClaim])])],
    authenticationType: 'Bearer',
    attributes: NO_ATTRIBUTES,
  };
  if (typeof claims.sid === 'string') principal.sessionId = claims.sid;
  if (typeof claims.tid === 'string' && claims.tid) principal.tenantId = claims.tid;
  return principal;
}
