import Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import { RoleGrants } from './auth/permission-grants.js';
import { tokenSettings } from './auth/token-keys.js';
import type { AppConfig } from './config/schema.js';
import { registerDocs } from './docs/docs-page.js';
import type { LayerInfrastructure } from './create-services.js';
import { bearerVerification, requireCaller } from './http/auth/authenticate.js';
import { cookieSessions } from './http/auth/cookie-sessions.js';
import { operatorOrCaller } from './http/auth/operator-gate.js';
import { jsonBody } from './http/body.js';
import type { AppExtensions, AppState } from './http/context.js';
import { createErrorParser } from './http/error-parser.js';
import { frontDoor } from './http/front-door.js';
import { mergePatchType } from './http/merge-patch-type.js';
import { privateAnswer } from './http/private-answer.js';
import { corsFor, queryLimit } from './http/protections.js';
import { webApp } from './http/web-app.js';
import { idempotencyKeys } from './idempotency/idempotency-key.js';
import { IdempotencyKeyStore } from './idempotency/key-store.js';
import type { Logger } from './log.js';
import { requestDuration } from './metrics/request-duration.js';
import type { LayerServices } from './routing/layer-services.js';
import type { LoadedRoute } from './routing/route.js';
import { bodyLimitOf, isAnonymous, permissionNames, routeAccess } from './routing/route-access.js';
import { runRoute } from './routing/run-route.js';
import { requireTenant } from './http/auth/require-tenant.js';
import type { UniqueKey } from './storage/unique-violation.js';

export interface AppOptions {
  config: AppConfig;
  services: LayerServices;
  infrastructure: LayerInfrastructure;
  routes: LoadedRoute[];
  log: Logger;
  /** The modules' declared unique keys, for 409 Entity_Duplicate on the right property. */
  uniqueKeys?: readonly UniqueKey[];
}

export type App = Koa<AppState, AppExtensions>;

/**
 * The Koa application: request metrics (when served) → front door (request id, security headers, error boundary,
 * request log) → CORS → query limit → browser app (when enabled) → cookie sessions (variant A) → router. Each
 * route's own chain is what routing/route-access.ts makes of its options: the caller/permission gate (bearer token,
 * else cookie session) unless anonymous, [JSON body, within the route's limit] when it takes one, [Idempotency-Key] on a secured POST, then the
 * envelope runner. Middleware get what they need here, as arguments; routes get `services` only.
 */
export function createApp({ config, services, infrastructure, routes, log, uniqueKeys }: AppOptions): App {
  const app: App = new Koa<AppState, AppExtensions>();
  app.context.services = services;
  // Every permission a route names is resolved for each set of roles once, when first seen (lib/auth/permission-grants.ts).
  const grants = new RoleGrants(config.Authorization.Roles, permissionNames(routes));
  app.context.server = { config, routes, grants, exportPageRows: infrastructure.storage.dialect.exportPageRows };
  app.context.log = log;
  app.context.parseError = createErrorParser({ production: config.env === 'production', uniqueKeys });
  // Errors are answered and logged by the boundary; Koa's own printer would only add noise.
  app.silent = true;

  app.proxy = config.Server.TrustProxy;
  // Each trusted proxy appends the address it saw to X-Forwarded-For; anything further left came from the client.
  // Koa keeps the last maxIpsCount entries and takes the first of those as ctx.ip (contract part 4, "Client address").
  app.maxIpsCount = config.Server.ProxyCount;

  const auth = config.Authentication;
  const prefix = config.RestAPI.Path;
  const router = new Router<AppState, AppExtensions>(prefix ? { prefix } : {});
  const settings = tokenSettings(config);
  const verify = bearerVerification(settings, services.tokens);
  const callerOptions = { allowedOrigins: auth.AllowedOrigins, cookieAbsoluteMs: auth.Cookie.AbsoluteHours * 3_600_000 };
  const timeoutMs = config.RestAPI.RequestTimeoutSeconds * 1000;
  const keepMs = config.RestAPI.IdempotencyKeepSeconds * 1000;
  const keys = new IdempotencyKeyStore(infrastructure.storage, {
    keepMs,
    // Well past any timeout: an operation may outlive its request's answer, but not by this much.
    staleMs: 10 * timeoutMs,
  });
  // A repeat waits as long as the first request is given to answer, then answers 409 Request_InProgress.
  // Expired keys go once a minute (or once per keep period, when that is shorter), a batch at a time.
  const idempotency = idempotencyKeys(keys, { waitMs: timeoutMs, purgeEveryMs: Math.min(60_000, keepMs), keepMs, log });
  const caller = (permission: string | undefined, optional = false) =>
    requireCaller(verify, infrastructure.access, grants, permission, optional ? { ...callerOptions, optional } : callerOptions);
  // Operator tokens name the URL they were sent to: accepted only for this server's own (lib/http/auth/operator-gate.ts).
  const operatorBases = { publicUrl: config.Server.PublicUrl, prefix };
  const settingsOfAccess = { variant: auth.Variant, publicDocs: config.RestAPI.PublicDocs };
  for (const { path, verb, route } of routes) {
    const access = routeAccess(route, verb, settingsOfAccess);
    // The other variant's routes do not exist: they answer 404 like any unknown path.
    if (!access.served) continue;
    const chain: Middleware<AppState, AppExtensions>[] = [];
    if (access.gate === 'operator') {
      chain.push(operatorOrCaller(settings, access.operator!, operatorBases, infrastructure.shared.usedTokenIds, caller(access.permission), access.permission));
    } else if (access.gate === 'caller') chain.push(caller(access.permission));
    else if (access.gate === 'identify') chain.push(caller(undefined, true));
    if (route.tenant && config.Tenancy.Enabled && access.gate === 'caller') chain.push(requireTenant);
    if (access.privateAnswer) chain.push(privateAnswer);
    if (verb === 'PATCH') chain.push(mergePatchType);
    // Each route reads what it takes, no more (bodyLimitOf): reading a body (parse, depth check, repeated-key scan,
    // validation) costs main-thread time linear in what it holds, so a record write's is far below a megabyte, a
    // document's create follows its line cap, and an anonymous route's (a login: anyone may call it) is smaller still.
    if (access.bodyLimit) chain.push(jsonBody(bodyLimitOf(route, access.bodyLimit, config)));
    // Idempotency-Key: for authenticated callers, after the body is read (its hash tells a repeat from a new request).
    if (access.idempotencyKey) chain.push(idempotency);
    chain.push(runRoute(route, prefix, timeoutMs));
    router.register(path, [verb], chain);
  }
  const docsPage = registerDocs(router, prefix, isAnonymous({ documentation: true }, config.RestAPI.PublicDocs) ? [] : [caller(undefined)]);
  if (!docsPage) log.warn('the docs page (GET /docs) needs the package swagger-ui-dist, which is not installed (npm install swagger-ui-dist); /openapi.json is served');

  // Outside the front door, so the time and status are those of the answer the error boundary settled on.
  if (config.Metrics.Port) app.use(requestDuration(infrastructure.metrics, prefix));
  app.use(frontDoor);
  const allowCors = corsFor(config.RestAPI.Cors.Origins);
  if (allowCors) app.use(allowCors);
  app.use(queryLimit(config.RestAPI.MaxQueryLength));
  // The browser app (Web:Enabled) at `/`: it answers only GET/HEAD of its own files outside RestAPI:Path.
  if (config.Web.Enabled) app.use(webApp(config));
  if (auth.Variant === 'A') {
    app.keys = auth.Cookie.Keys;
    app.use(cookieSessions(app, { store: infrastructure.cookieSessions, idleMinutes: auth.Cookie.IdleMinutes }));
  }
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
