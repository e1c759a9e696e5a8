import type { Middleware, Next } from 'koa';
import { koaBody } from 'koa-body';
import { ServiceError } from '../envelope/error-list.js';
import { MESSAGES } from '../envelope/message-catalogue.js';
import { noteRepeatedKeys } from '../validation/repeated-keys.js';
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

/** What koa-body declares a parsed body to be (type-fest's JsonValue). */
type JsonBody = AppContext['request']['body'];

const tooDeep = () => new ServiceError([MESSAGES.Request_TooDeep({ maxDepth: MAX_JSON_DEPTH })]);

/**
 * The request's JSON text as a value. JSON.parse itself (not koa-body's parser, which reports a `__proto__` key as
 * malformed JSON): such a key becomes an own property, which `model()` refuses by name. Keys given twice are noted
 * for `model()` too, from the text, since the parsed value keeps only one of them.
 */
function parseJson(text: string): JsonBody {
  // An empty body stays empty: a route whose body is optional (logout) takes it as "none".
  if (text === '') return text;
  let value: JsonBody;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ServiceError([MESSAGES.Request_MalformedJson()]);
  }
  // Checked before anything walks the body recursively (the key scan, validation, error texts).
  if (typeof value === 'object' && value !== null && nestedDeeperThan(value, MAX_JSON_DEPTH)) throw tooDeep();
  noteRepeatedKeys(text, value);
  return value;
}

/** Parses JSON bodies only; any other content type with a body is a 415, an oversized one a 413. */
export function jsonBody(limitBytes: number): Middleware<AppState, AppExtensions> {
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
      if (typeof text === 'string') ctx.request.body = parseJson(text);
      return next();
    });
  };
}
