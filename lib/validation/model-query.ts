import type { Struct } from 'superstruct';
import { type ValidationResult, validateInput } from './validate.js';

/**
 * A route's query string read as a model (a route's `query`, the layer's QuerySchema), for parameters that are not
 * list criteria: `?revisionNumber=3`, a history's `skip` and `take`. Names match case-insensitively, and a name given
 * twice or an unknown one is a 400 on it, as in bodies: a parameter given twice becomes a list, which a single value
 * refuses, rather than the last one silently taken. `model` lets the OpenAPI document describe the parameters.
 */
export function modelQuery<T>(struct: Struct<T, unknown>): { model: Struct<T, unknown>; parse(search: URLSearchParams): ValidationResult<T> } {
  return {
    model: struct,
    parse(search) {
      const values = new Map<string, string[]>();
      for (const [key, value] of search) values.set(key, [...(values.get(key) ?? []), value]);
      return validateInput(struct, Object.fromEntries([...values].map(([key, list]) => [key, list.length === 1 ? list[0] : list])));
    },
  };
}
