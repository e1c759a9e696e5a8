import type { Context, Failure, Struct } from 'superstruct';

/** What a struct's walk ends with: the coerced value, and whether that part of the input had no failure. */
export type Outcome = { status: 'valid' | 'not_valid' | 'not_refined'; value: unknown };

/** A struct of any type, as the walk treats it: its values come from outside, so they are `unknown` here. */
type AnyStruct = Struct<unknown, unknown>;

function* walk(value: unknown, struct: AnyStruct, context: Context): Generator<Failure, Outcome> {
  const { path, branch } = context;
  value = struct.coercer(value, context);
  let status: Outcome['status'] = 'valid';
  for (const failure of struct.validator(value, context)) {
    status = 'not_valid';
    yield failure;
  }
  for (const [key, child, childStruct] of struct.entries(value, context)) {
    const entry = walk(child, childStruct as AnyStruct, {
      path: key === undefined ? path : [...path, key],
      branch: key === undefined ? branch : [...branch, child],
    });
    for (let step = entry.next(); ; step = entry.next()) {
      if (!step.done) {
        status = step.value.refinement != null ? 'not_refined' : 'not_valid';
        yield step.value;
        continue;
      }
      if (step.value.status !== 'valid') break;
      const coerced = step.value.value;
      if (key === undefined) value = coerced;
      else if (value instanceof Map) value.set(key, coerced);
      else if (value instanceof Set) value.add(coerced);
      else if (typeof value === 'object' && value !== null && (coerced !== undefined || key in value)) {
        (value as Record<string | number, unknown>)[key] = coerced;
      }
      break;
    }
  }
  if (status !== 'not_valid') {
    for (const failure of struct.refiner(value, context)) {
      status = 'not_refined';
      yield failure;
    }
  }
  return { status, value };
}

/**
 * `validate(value, struct, { coerce: true })` as a walk that yields each failure in superstruct's order and returns
 * the outcome, so that a caller can stop once it has enough failures. superstruct finds them lazily too, but its
 * `StructError.failures()` collects every one before answering: a body of 90,000 unknown properties became 90,000
 * failures (and texts) however few were reported. This is superstruct's own walk (`run` in its source, which it does
 * not export): coerce, check the value, then its entries depth first, then its refinements when nothing in it failed;
 * over the members every Struct has. The outcome's value is the coerced input when its status is `valid`.
 */
export function checkInput<T, S>(value: unknown, struct: Struct<T, S>): Generator<Failure, Outcome> {
  return walk(value, struct as unknown as AnyStruct, { path: [], branch: [value] });
}
