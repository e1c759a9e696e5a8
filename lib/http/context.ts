import type { ParameterizedContext } from 'koa';
import type { Logger } from '../log.js';
import type { ParsedError } from './error-parser.js';

/**
 * What middleware leaves on `ctx.state` for those after it. Declared empty of everything but the request id: each
 * part of the layer that sets something declares it where it sets it, by augmentation (as Hono's
 * `ContextVariableMap`): `declare module '<path>/http/context.js' { interface AppState { principal?: Principal } }`.
 * So the context is typed with what is really put on it, and this file imports nothing above it.
 */
export interface AppState {
  requestId: string;
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
  /** The language of the body's message texts (Content-Language), when it has messages. */
  language?: string;
}

/**
 * What the application adds to every Koa context (`app.context`): the log and the error parser the front door
 * needs; the routing layer adds what routes are run with (lib/routing/route.ts), by augmentation like `AppState`.
 */
export interface AppExtensions {
  log: Logger;
  parseError(err: unknown): ParsedError;
}

export type AppContext = ParameterizedContext<AppState, AppExtensions>;
