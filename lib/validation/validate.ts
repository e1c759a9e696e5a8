import type { Struct, Failure } from 'superstruct';
import { MAX_MESSAGES } from '../envelope/error-list.js';
import { type ErrorMessage, message } from '../envelope/error-message.js';
import { CODES, entryOf, inputMessage, isCatalogued } from '../envelope/message-catalogue.js';
import { checkInput } from './failures.js';

/** `a.b[0].c` from superstruct's path array. */
export function propertyPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out ? `.${part}` : part;
  return out;
}

/**
 * How much of a property's name its message's text repeats. `property` carries the whole path; the text needs only
 * enough to be read, or every long unknown key a client sends would come back twice as long (a body amplified).
 */
const NAMED_IN_TEXT = 100;

function describe(failure: Failure & { code?: string }, property: string): ErrorMessage {
  const subject = property.length > NAMED_IN_TEXT ? `${property.slice(0, NAMED_IN_TEXT)}…` : property || 'The request body';
  const on = property ? { property } : {};
  if (failure.code) {
    // A failure of the layer's fields (its predicate already made from the catalogue), or a code of the application's.
    const type = isCatalogued(failure.code) ? entryOf(failure.code).type : 'Validation';
    const m = message(type, failure.code, `${subject} ${failure.message}`, on);
    // The values of the predicate, when the layer's catalogue made it, so the answer can be written in another language.
    const params = (failure as { params?: Record<string, unknown> }).params;
    if (isCatalogued(failure.code)) m.source = { key: failure.code, params: params ?? {}, subject };
    return m;
  }
  if (failure.type === 'never') return inputMessage(CODES.Input_UnknownProperty, subject, { property });
  if (failure.value === undefined) return inputMessage(CODES.Input_Required, subject, on);
  const expected = failure.type === 'object' ? 'a JSON object' : failure.type === 'array' ? 'an array' : `of type ${failure.type}`;
  return inputMessage(CODES.Input_InvalidType, subject, { expected, ...on });
}

/** Whether `property` or a path it lies below (`a` and `a.b` for `a.b[0]`) is in `paths`: one look-up per level. */
function withinAny(property: string, paths: ReadonlySet<string>): boolean {
  if (!paths.size) return false;
  for (let i = 1; i < property.length; i++) {
    if ((property[i] === '.' || property[i] === '[') && paths.has(property.slice(0, i))) return true;
  }
  return paths.has(property);
}

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; messages: ErrorMessage[] };

/**
 * Validates and coerces `value`, reporting every failure (not only the first) as one message with its property, up
 * to one more than an answer lists (`MAX_MESSAGES`): the error list says the rest were found, and the walk stops
 * there, so a body of many bad properties costs what its first hundred do.
 * `rename` lets a caller map an internal path to the name the client used.
 */
export function validateInput<T>(
  struct: Struct<T, unknown>,
  value: unknown,
  prefix: (string | number)[] = [],
  rename: (path: (string | number)[]) => (string | number)[] = (p) => p,
): ValidationResult<T> {
  try {
    const walk = checkInput(value, struct);
    let step = walk.next();
    // A walk that ends before any failure ends valid.
    if (step.done) return { ok: true, value: step.value.value as T };
    const seen = new Set<string>();
    const settled = new Set<string>();
    const messages: ErrorMessage[] = [];
    for (; !step.done && messages.length <= MAX_MESSAGES; step = walk.next()) {
      const failure: Failure & { settles?: boolean } = step.value;
      const m = describe(failure, propertyPath([...prefix, ...rename(failure.path)]));
      // A property sent twice gets that one message: whatever else is said of it is about only one of its values.
      // (A settling failure comes before those of the property's value: superstruct checks a struct before its entries.)
      if (m.property && withinAny(m.property, settled)) continue;
      if (failure.settles && m.property) settled.add(m.property);
      const key = `${m.property}|${m.code}`;
      if (!seen.has(key)) {
        seen.add(key);
        messages.push(m);
      }
    }
    return { ok: false, messages };
  } catch (err) {
    // superstruct prints rejected values into its texts; a value it cannot print (nested too deeply, a `toString`
    // property of its own) must not turn bad input into a server error.
    if (!(err instanceof RangeError || err instanceof TypeError)) throw err;
    const property = propertyPath(prefix);
    return {
      ok: false,
      messages: [inputMessage(CODES.Input_Invalid, property || 'The request body', {
        problem: 'it cannot be checked, being nested too deeply or holding values of an unexpected kind', ...(property ? { property } : {}),
      })],
    };
  }
}
