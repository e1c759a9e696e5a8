import type { ParameterizedContext } from 'koa';
import type { Principal, TokenClaims } from '../auth/principal.js';
import type { ParsedError } from './error-parser.js';
import type { AppConfig } from '../config/schema.js';
import type { Logger } from '../log.js';
import type { LoadedRoute } from '../routing/load-routes.js';
import type { LayerServices } from '../create-services.js';

export interface AppState {
  requestId: string;
  principal?: Principal;
  /** Set by koa-jwt when a bearer token verified. */
  claims?: TokenClaims;
  /** Set by koa-jwt when a bearer token was present but did not verify. */
  jwtOriginalError?: Error;
  /**
   * Set by the Idempotency-Key layer (lib/idempotency/): the route runner hands it the answer the operation ends
   * with, also when that comes after a timeout already answered the caller, so a repeat gets the real outcome.
   */
  settleAnswer?: (answer: Promise<FinalAnswer>) => void;
}

/** An operation's answer as sent: status, Location (on 201), the envelope text and its message codes. */
export interface FinalAnswer {
  status: number;
  location?: string;
  body: string;
  codes: string[];
}

/** What the application adds to every Koa context (via `app.context`). */
export interface AppExtensions {
  /** The layer's services and every module's; a route's own `call.services` is typed with the application's. */
  services: LayerServices;
  /** What the server was started with, for routes that describe the server itself (the OpenAPI document). */
  server: ServerDescription;
  log: Logger;
  parseError(err: unknown): ParsedError;
}

export interface ServerDescription {
  readonly config: AppConfig;
  readonly routes: readonly LoadedRoute[];
}

export type AppContext = ParameterizedContext<AppState, AppExtensions>;
