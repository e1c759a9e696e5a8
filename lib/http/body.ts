import type { Middleware, Next } from 'koa';
import { koaBody } from 'koa-body';
import { ServiceError } from '../envelope/error-list.js';
import { MESSAGES } from '../envelope/message-catalogue.js';
import { type BodyLimit, measureJson } from '../validation/json-budget.js';
import { noteJsonText } from '../validation/repeated-keys.js';
import type { AppContext, AppExtensions, AppState } from './context.js';

/** How deeply a JSON body may nest objects and arrays. Real inputs are a few levels deep. */
export const MAX_JSON_DEPTH = 64;

/** What koa-body declares a parsed body to be (type-fest's JsonValue). */
type JsonBody = AppContext['request']['body'];

/**
 * The request's JSON text as a value. First its keys and array elements are counted from its tokens, and its nesting
 * (measureJson): a body past the route's budget is a 413 and one nested too deeply a 400, before anything walks it.
 * Then JSON.parse itself (not koa-body's parser, which reports a `__proto__` key as malformed JSON): such a key
 * becomes an own property, which `model()` refuses by name. What the parsed value no longer shows is noted for
 * `model()` from the text: keys given twice (it keeps one of them), and numbers it rounded (the digits of an amount).
 */
function parseJson(text: string, limit: BodyLimit): JsonBody {
  // An empty body stays empty: a route whose body is optional (logout) takes it as "none".
  if (text === '') return text;
  const measured = measureJson(text, limit.items, MAX_JSON_DEPTH);
  if (measured.items > limit.items) throw new ServiceError([MESSAGES.Request_TooLarge({ limitItems: limit.items })]);
  if (measured.depth > MAX_JSON_DEPTH) throw new ServiceError([MESSAGES.Request_TooDeep({ maxDepth: MAX_JSON_DEPTH })]);
  let value: JsonBody;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ServiceError([MESSAGES.Request_MalformedJson()]);
  }
  noteJsonText(text, value);
  return value;
}

/**
 * Parses JSON bodies only; any other content type with a body is a 415, one over `limit` (its bytes, or its keys and
 * array elements) a 413.
 */
export function jsonBody(limit: BodyLimit): Middleware<AppState, AppExtensions> {
  const limitBytes = limit.bytes;
  // koa-body (co-body) reads the text, with the limit and Content-Encoding handled; parseJson makes it a value.
  const read = koaBody({
    json: false, urlencoded: false, text: true, multipart: false,
    // The same types the 415 check below lets through: application/json and any +json type.
    textTypes: ['application/json', '+json'],
    textLimit: limitBytes,
  }) as unknown as Middleware<AppState, AppExtensions>;
  return async (ctx: AppContext, next: Next) => {
    if (ctx.request.length > limitBytes) {
      throw new ServiceError([MESSAGES.Request_TooLarge({ limitBytes })]);
    }
    const hasBody = ctx.is() !== null && ctx.request.length !== 0;
    if (hasBody && !ctx.is('application/json', '+json')) {
      throw new ServiceError([MESSAGES.Request_UnsupportedMediaType({ sent: ctx.get('Content-Type') || 'without a content type' })]);
    }
    return read(ctx, () => {
      const text: unknown = ctx.request.body;
      if (typeof text === 'string') ctx.request.body = parseJson(text, limit);
      return next();
    });
  };
}
