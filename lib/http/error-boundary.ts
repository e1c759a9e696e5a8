import type { ErrorMessage } from '../envelope/error-message.js';
import { MESSAGES } from '../envelope/message-catalogue.js';
import type { AppContext } from './context.js';
import { respond } from './respond.js';

/**
 * The error boundary, in two halves run by the front door around everything else: whatever the router left
 * unanswered, and whatever was thrown anywhere (body parsing, auth, routing, a route), becomes the envelope.
 */
export function answerUnanswered(ctx: AppContext): void {
  if (ctx.body == null && ctx.status === 404) {
    respond(ctx, [MESSAGES.Route_NotFound({ method: ctx.method, path: ctx.path })]);
  } else if (ctx.body == null && (ctx.status === 405 || ctx.status === 501)) {
    respond(ctx, [MESSAGES.Route_MethodNotAllowed({ method: ctx.method, path: ctx.path, allow: ctx.response.get('Allow') })]);
  } else if (ctx.method === 'OPTIONS' && ctx.status === 200 && (ctx.body == null || ctx.body === '')) {
    // The router answers OPTIONS with the Allow header and an empty body; every body of the API is the envelope.
    respond(ctx, []);
  }
}

/** A thrown error as the envelope; a defect is logged once, with the request id. */
export function answerFailure(ctx: AppContext, err: unknown): void {
  const messages = messagesOf(ctx, err);
  if (ctx.headerSent || !ctx.writable) return;
  respond(ctx, messages);
  leaveAbandonedBody(ctx);
}

/**
 * A body that was read in part and then given up (it did not decompress, it grew over the limit) leaves its rest
 * unread on the connection, which node then resets: a client that reuses the keep-alive connection the answer
 * offered gets ECONNRESET. So the answer says `Connection: close`; the front door reads and drops the rest before
 * answering (readUnreadBody), so the close does not reset the answer away. (A body never started is drained by
 * node itself on a connection that stays open.)
 */
function leaveAbandonedBody(ctx: AppContext): void {
  const req = ctx.req;
  if (req.complete || !req.readableDidRead) return;
  ctx.set('Connection', 'close');
}

/** The envelope messages for a thrown error; a defect is logged with the request id (and its stack, server-side only). */
export function messagesOf(ctx: AppContext, err: unknown): ErrorMessage[] {
  const parsed = ctx.parseError(err);
  if (parsed.unhandled) {
    ctx.log.error('unhandled exception', {
      requestId: ctx.state.requestId, method: ctx.method, path: ctx.path,
      error: err instanceof Error ? err.stack ?? err.message : String(err),
    });
  }
  if (!ctx.headerSent) for (const [name, value] of Object.entries(parsed.headers ?? {})) ctx.set(name, value);
  return parsed.messages;
}
