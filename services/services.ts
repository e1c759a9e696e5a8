import type { LoginThrottle } from '../lib/auth/login-throttle.js';
import { tokenSettings } from '../lib/auth/token-keys.js';
import type { AppConfig } from '../lib/config/schema.js';
import { LookupCache } from '../lib/lookup/lookup-cache.js';
import type { SharedState } from '../lib/shared/shared-state.js';
import type { Storage } from '../lib/storage/storage.js';
import { type ICookieSessionStore, SqlCookieSessionStore } from './auth/cookie-session-store.js';
import type { ILoginService } from './auth/login-service.js';
import { PasswordLoginService } from './auth/password-login-service.js';
import { SessionTokenService } from './auth/session-token-service.js';
import { SqlUserService } from './auth/sql-user-service.js';
import { type IUserAccess, UserAccess } from './auth/user-access.js';
import type { ITokenService } from './auth/token-service.js';
import type { IUserService } from './auth/user-service.js';
import { UserStore } from './auth/user-store.js';
import { CachedLookupService } from './lookup/cached-lookup-service.js';
import { registerLookupTables } from './lookup/lookup-loaders.js';
import type { ILookupService } from './lookup/lookup-service.js';
import type { ISalesOrderService } from './sales-order/sales-order-service.js';
import { SqlSalesOrderService } from './sales-order/sql-sales-order-service.js';

/** The business services one server runs, each behind its interface. Routes reach them as `call.services`. */
export interface Services {
  salesOrder: ISalesOrderService;
  lookup: ILookupService;
  login: ILoginService;
  users: IUserService;
  tokens: ITokenService;
  /** Whether a user's credentials may still be used: checked on every secured call. */
  access: IUserAccess;
  /** Shared state the HTTP layer needs: cookie sessions and login throttling. */
  cookieSessions: ICookieSessionStore;
  throttle: LoginThrottle;
  storage: Storage;
  shared: SharedState;
}

export function createServices(storage: Storage, config: AppConfig, shared: SharedState): Services {
  const cache = registerLookupTables(new LookupCache(shared.bus), storage);
  const auth = config.Authentication;
  const users = new UserStore(storage);
  const tokens = new SessionTokenService(storage, users, {
    settings: tokenSettings(config),
    refreshTokenDays: auth.RefreshTokenDays,
    reuseGraceSeconds: auth.RefreshReuseGraceSeconds,
    sessionRecheckSeconds: auth.SessionRecheckSeconds,
  });
  const cookieSessions = shared.cookieSessions ?? new SqlCookieSessionStore(storage);
  const access = new UserAccess(users, auth.SessionRecheckSeconds);
  return {
    storage,
    lookup: new CachedLookupService(cache),
    salesOrder: new SqlSalesOrderService(storage, cache, { maxRows: config.RestAPI.MaxRows }),
    login: new PasswordLoginService(users, auth.PasswordHashCost),
    users: new SqlUserService(users, tokens, cookieSessions, access, auth.PasswordHashCost),
    tokens,
    access,
    cookieSessions,
    throttle: shared.throttle,
    shared,
  };
}
