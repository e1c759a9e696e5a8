import type { Next } from 'koa';
import type { AppContext } from './context.js';
import { answerFailure, answerUnanswered } from './error-boundary.js';
import { setSecurityHeaders } from './protections.js';
import { assignRequestId } from './request-id.js';
import { logRequest } from './request-log.js';
import { readUnreadBody } from './unread-body.js';
import { traceClientAddress } from '../telemetry/tracing.js';

/**
 * The outermost middleware: what every request gets, whatever happens further in. An id, the security headers,
 * the error boundary, one log line. One layer rather than four, because each Koa layer costs a promise and, with
 * the request's error scope (AsyncLocalStorage), a hook call for every promise.
 */
export async function frontDoor(ctx: AppContext, next: Next): Promise<void> {
  const started = process.hrtime.bigint();
  assignRequestId(ctx);
  setSecurityHeaders(ctx);
  traceClientAddress(ctx.ip);
  try {
    await next();
    answerUnanswered(ctx);
  } catch (err) {
    answerFailure(ctx, err);
  } finally {
    // Only an answer given before its body was read, on a connection about to close, waits here.
    const reading = readUnreadBody(ctx);
    if (reading) await reading;
    logRequest(ctx, started);
  }
}
