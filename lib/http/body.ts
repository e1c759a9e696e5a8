import type { Middleware, Next } from 'koa';
import { koaBody } from 'koa-body';
import { ServiceError } from '../envelope/error-list.js';
import { message } from '../envelope/error-message.js';
import type { AppContext, AppExtensions, AppState } from './context.js';

/** Parses JSON bodies only; any other content type with a body is a 415, an oversized one a 413. */
export function jsonBody(limitBytes: number): Middleware<AppState, AppExtensions> {
  const parse = koaBody({
    json: true, urlencoded: false, text: false, multipart: false,
    // The same types the 415 check below lets through: application/json and any +json type.
    jsonTypes: ['application/json', '+json'],
    jsonLimit: limitBytes, jsonStrict: false,
  }) as unknown as Middleware<AppState, AppExtensions>;
  return async (ctx: AppContext, next: Next) => {
    if (ctx.request.length > limitBytes) {
      throw new ServiceError([message('Validation', 'Request_TooLarge', `The request body is larger than the ${limitBytes} bytes the server accepts.`, { status: 413 })]);
    }
    const hasBody = ctx.is() !== null && ctx.request.length !== 0;
    if (hasBody && !ctx.is('application/json', '+json')) {
      throw new ServiceError([message('Validation', 'Request_UnsupportedMediaType',
        `The request body must be sent as application/json, not ${ctx.get('Content-Type') || 'without a content type'}.`, { status: 415 })]);
    }
    return parse(ctx, next);
  };
}
