import type { Middleware, Next } from 'koa';
import { ServiceError } from '../envelope/error-list.js';
import { MESSAGES } from '../envelope/message-catalogue.js';
import type { AppContext, AppExtensions, AppState } from './context.js';

/**
 * PATCH bodies are JSON merge patches (RFC 7396). Plain application/json is read the same way, as clients commonly send
 * it; any other +json type (JSON Patch, RFC 6902, above all) means something else and is refused before parsing.
 */
export const mergePatchType: Middleware<AppState, AppExtensions> = (ctx: AppContext, next: Next) => {
  if (ctx.is() !== null && ctx.request.length !== 0 && !ctx.is('application/merge-patch+json', 'application/json')) {
    throw new ServiceError([MESSAGES.Request_UnsupportedMediaType({
      accepted: 'a JSON merge patch (application/merge-patch+json)', sent: ctx.get('Content-Type') || 'without a content type',
    })]);
  }
  return next();
};
