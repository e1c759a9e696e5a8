import type { Middleware, Next } from 'koa';
import { koaBody } from 'koa-body';
import { ServiceError } from '../envelope/error-list.js';
import { message } from '../envelope/error-message.js';
import type { AppContext, AppExtensions, AppState } from './context.js';

/** How deeply a JSON body may nest objects and arrays. Real inputs are a few levels deep. */
export const MAX_JSON_DEPTH = 64;

/** Whether `value` nests objects or arrays more than `limit` levels deep (iterative: depth costs no stack). */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length) {
    const [v, depth] = pending.pop()!;
    if (depth > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v as object)) {
      if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
    }
  }
  return false;
}

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
    return parse(ctx, () => {
      // Checked before anything walks the body recursively (validation, error texts).
      const body: unknown = ctx.request.body;
      if (typeof body === 'object' && body !== null && nestedDeeperThan(body, MAX_JSON_DEPTH)) {
        throw new ServiceError([message('Validation', 'Request_TooDeep', `The request body nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep.`)]);
      }
      return next();
    });
  };
}
