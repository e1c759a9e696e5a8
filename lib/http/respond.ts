import type { ErrorMessage } from '../envelope/error-message.js';
import { envelope, serializeEnvelope } from '../envelope/envelope.js';
import { derivedStatus } from '../envelope/error-list.js';
import { answerLanguage } from './answer-language.js';
import type { AppContext } from './context.js';

/**
 * Writes the envelope with the status derived from its messages (or `successStatus` when there are no errors), its
 * messages in the caller's language (`language`, when already chosen for this request).
 */
export function respond(ctx: AppContext, messages: readonly ErrorMessage[], result?: unknown, totalCount?: number, successStatus = 200, nextCursor?: string, language?: string): void {
  ctx.status = derivedStatus(messages, successStatus);
  ctx.type = 'application/json; charset=utf-8';
  const written = messages.length ? language ?? answerLanguage(ctx) : undefined;
  ctx.body = serializeEnvelope(envelope(messages, result, totalCount, nextCursor, written));
}
