import type { ICookieSessionStore } from './auth/cookie-session-store.js';
import { SqlCookieSessionStore } from './auth/cookie-session-store.js';
import type { ILoginService } from './auth/login-service.js';
import type { LoginThrottle } from './auth/login-throttle.js';
import { authModule } from './auth/module.js';
import { idempotencyModule } from './idempotency/module.js';
import { PasswordLoginService } from './auth/password-login-service.js';
import { SessionTokenService } from './auth/session-token-service.js';
import { SqlUserService } from './auth/sql-user-service.js';
import { tokenSettings } from './auth/token-keys.js';
import type { ITokenService } from './auth/token-service.js';
import { type IUserAccess, UserAccess } from './auth/user-access.js';
import type { IUserService } from './auth/user-service.js';
import { UserStore } from './auth/user-store.js';
import type { AppConfig } from './config/schema.js';
import { CachedLookupService } from './lookup/cached-lookup-service.js';
import { LookupCache } from './lookup/lookup-cache.js';
import type { ILookupService } from './lookup/lookup-service.js';
import { registerOperatorsTable } from './lookup/operators-table.js';
import { type Metrics, createMetrics } from './metrics/metrics.js';
import type { ServiceModule } from './modules.js';
import type { SharedState } from './shared/shared-state.js';
import type { Storage } from './storage/storage.js';

/** The services of the layer itself, which every application has: lookups, login, users, tokens and their state. */
export interface LayerServices {
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
  /** The server's Prometheus metrics, for counting what routes decide (logins). */
  metrics: Metrics;
}

/** The layer's own modules first, then the application's, each name once (a name keys a migration history). */
export function allModules(modules: readonly ServiceModule[]): readonly ServiceModule[] {
  const all = [authModule, idempotencyModule, ...modules];
  const seen = new Set<string>();
  for (const { name } of all) {
    if (seen.has(name)) throw new Error(`two service modules are named '${name}': module names must be unique`);
    seen.add(name);
  }
  return all;
}

/** Creates the layer's services and then every module's, in order; routes reach them as `call.services`. */
export function createServices<S extends LayerServices = LayerServices>(
  modules: readonly ServiceModule[], storage: Storage, config: AppConfig, shared: SharedState,
  metrics: Metrics = createMetrics({ processMetrics: false }),
): S {
  const lookups = registerOperatorsTable(new LookupCache(shared.bus, (type) => metrics.lookupLoads.inc({ type })));
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
  const layer: LayerServices = {
    storage,
    lookup: new CachedLookupService(lookups),
    login: new PasswordLoginService(users, auth.PasswordHashCost),
    users: new SqlUserService(users, tokens, cookieSessions, access, auth.PasswordHashCost),
    tokens,
    access,
    cookieSessions,
    throttle: shared.throttle,
    shared,
    metrics,
  };
  const services: Record<string, unknown> = { ...layer };
  for (const module of allModules(modules)) {
    module.lookups?.(lookups, storage);
    const created = module.create?.({ storage, config, lookups, layer }) ?? {};
    for (const [key, service] of Object.entries(created)) {
      if (key in services) throw new Error(`service module '${module.name}' provides '${key}', which another module or the layer already provides`);
      services[key] = service;
    }
  }
  return services as S;
}
