import { auditMigrations } from './audit/migrations.js';
import { authMigrations } from './auth/migrations.js';
import type { ICookieSessionStore } from './auth/cookie-session-store.js';
import { SqlCookieSessionStore } from './auth/cookie-session-store.js';
import { LoginAttempts } from './auth/login-attempts.js';
import type { ILoginService } from './auth/login-service.js';
import type { LoginThrottle } from './auth/login-throttle.js';
import { PasswordLoginService } from './auth/password-login-service.js';
import { SessionTokenService } from './auth/session-token-service.js';
import { SqlUserService } from './auth/sql-user-service.js';
import { tokenSettings } from './auth/token-keys.js';
import { type IUserAccess, UserAccess } from './auth/user-access.js';
import { UserStore } from './auth/user-store.js';
import type { AppConfig } from './config/schema.js';
import { idempotencyMigrations } from './idempotency/migrations.js';
import { CachedLookupService } from './lookup/cached-lookup-service.js';
import { LookupCache } from './lookup/lookup-cache.js';
import { registerOperatorsTable } from './lookup/operators-table.js';
import type { Metrics } from './metrics/metrics.js';
import type { ServiceModule } from './modules.js';
import type { LayerServices } from './routing/layer-services.js';
import { storesHealth } from './shared/health.js';
import type { SharedState } from './shared/shared-state.js';
import type { Storage } from './storage/storage.js';
import { documentLimits } from './documents/document-limits.js';
import { listLimits } from './storage/list-limits.js';
import { referrersOf } from './resources/serving.js';

/**
 * What the server runs on besides the services routes see: the middleware and the server itself get these as
 * arguments (lib/app.ts), never through `call.services`.
 */
export interface LayerInfrastructure {
  storage: Storage;
  shared: SharedState;
  /** The server's Prometheus metrics. */
  metrics: Metrics;
  throttle: LoginThrottle;
  cookieSessions: ICookieSessionStore;
  /** Whether a user's credentials may still be used: checked on every secured call. */
  access: IUserAccess;
}

/** The layer's own modules: their tables come before any application module's. */
const layerModules: readonly ServiceModule[] = [
  { name: 'auth', migrations: authMigrations },
  { name: 'idempotency', migrations: idempotencyMigrations },
  { name: 'audit', migrations: auditMigrations },
];

/** The layer's own modules first, then the application's, each name once (a name keys a migration history). */
export function allModules(modules: readonly ServiceModule[]): readonly ServiceModule[] {
  const all = [...layerModules, ...modules];
  const seen = new Set<string>();
  for (const { name } of all) {
    if (seen.has(name)) throw new Error(`two service modules are named '${name}': module names must be unique`);
    seen.add(name);
  }
  return all;
}

/** The layer's services a module may provide its own of, in place of the layer's. */
const replaceable = new Set<string>(['login']);

export interface CreatedServices<S extends LayerServices> {
  /** The layer's services and every module's: what routes reach as `call.services`. */
  services: S;
  /** All but the metrics, which the server makes (and counts the store's statements in). */
  infrastructure: Omit<LayerInfrastructure, 'metrics'>;
}

/**
 * Creates the layer's services and then every module's, in order; routes reach them as `call.services`. Logins and
 * lookup loads are counted in `metrics` when given (a server's; a CLI command counts nothing, and so loads no
 * Prometheus client).
 */
export function createServices<S extends LayerServices = LayerServices>(
  modules: readonly ServiceModule[], storage: Storage, config: AppConfig, shared: SharedState, metrics?: Metrics,
): CreatedServices<S> {
  const lookups = registerOperatorsTable(new LookupCache(shared.bus, (type) => metrics?.lookupLoads.inc({ type })));
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
  const infrastructure = { storage, shared, throttle: shared.throttle, cookieSessions, access };
  const services: Record<string, unknown> = {};
  // `layer` is what modules get: a module that provides its own `login` may build on the layer's.
  const layer: LayerServices = {
    lookup: new CachedLookupService(lookups),
    login: new PasswordLoginService(users, auth.PasswordHashCost),
    // The throttle wraps whichever login service is in place once the modules are created.
    loginAttempts: new LoginAttempts(shared.throttle, { authenticate: (credentials, type) => (services.login as ILoginService).authenticate(credentials, type) },
      (outcome) => metrics?.logins.inc({ outcome })),
    users: new SqlUserService(users, tokens, cookieSessions, access, auth.PasswordHashCost),
    tokens,
    health: storesHealth(storage, shared),
  };
  Object.assign(services, layer);
  const replaced = new Set<string>();
  const resources = modules.flatMap((m) => m.resources ?? []);
  const referrers = referrersOf(resources);
  const limits = { ...listLimits(config), ...documentLimits(config) };
  for (const module of allModules(modules)) {
    module.lookups?.(lookups, storage);
    for (const resource of module.resources ?? []) resource.registerLookups(lookups, storage);
    const created: Record<string, unknown> = { ...module.create?.({ storage, config, lookups, layer }) };
    // Each resource runs on this store under its key: `call.services.customer`.
    for (const resource of module.resources ?? []) {
      if (resource.serviceKey in created) throw new Error(`service module '${module.name}' provides '${resource.serviceKey}' twice: by create and by a resource`);
      created[resource.serviceKey] = resource.serve({ storage, lookups, limits, referrers: referrers.get(resource.model) ?? [] });
    }
    for (const [key, service] of Object.entries(created)) {
      const replaces = replaceable.has(key) && !replaced.has(key);
      if (key in services && !replaces) throw new Error(`service module '${module.name}' provides '${key}', which another module or the layer already provides`);
      if (replaces) replaced.add(key);
      services[key] = service;
    }
  }
  return { services: services as S, infrastructure };
}
