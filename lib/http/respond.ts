import type { ErrorMessage } from '../envelope/error-message.js';
import { envelope, serializeEnvelope } from '../envelope/envelope.js';
import { derivedStatus } from '../envelope/error-list.js';
import type { AppContext } from './context.js';

/** Writes the envelope with the status derived from its messages (or `successStatus` when there are no errors). */
export function respond(ctx: AppContext, messages: readonly ErrorMessage[], result?: unknown, totalCount?: number, successStatus = 200, nextCursor?: string): void {
  ctx.status = derivedStatus(messages, successStatus);
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = serializeEnvelope(envelope(messages, result, totalCount, nextCursor));
}
