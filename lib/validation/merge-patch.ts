import { Struct, optional } from 'superstruct';
import { CODES, MESSAGES, inputFailure } from '../envelope/message-catalogue.js';
import { Output } from '../envelope/output.js';
import { currentErrors } from '../envelope/request-scope.js';
import { model } from './fields.js';
import { type PatchOf, mergePatch } from '../client/merge-patch.js';

/** The field structs of a `model` (superstruct keeps an object's schema on the struct). */
const fieldsOf = <S>(update: { schema: S }) => update.schema as Record<string, Struct<unknown, unknown>>;

// The merge itself is browser-safe, in the client (restlayer/client exports it): one function on both sides.
export { type PatchOf, mergePatch };

/**
 * `struct` refusing `null` with "cannot be cleared". Everything else is the struct's own, its coercion above all
 * (`"2"` and `"TRUE"` are taken where PUT takes them), as superstruct's `nullable` keeps it.
 */
function notClearable(struct: Struct<unknown, unknown>): Struct<unknown, unknown> {
  return new Struct({
    ...struct,
    validator: (value, context) => value === null
      ? inputFailure(CODES.Input_Required, { why: 'it cannot be cleared' })
      : struct.validator(value, context),
  });
}

/**
 * The body of a PATCH (RFC 7396 JSON merge patch) for an update model: every field optional, each checked as the update
 * checks it when present; `null` is accepted where the update accepts no value and refused, on that property, where
 * the field is required. It is a `model` itself, so every key rule of PUT holds as it does there: names match
 * case-insensitively, a property named twice, a reserved name and an unknown property are each refused on it.
 */
export function patchModel<T extends object, S>(update: Struct<T, S>): Struct<PatchOf<T>, unknown> {
  const fields = Object.fromEntries(Object.entries(fieldsOf(update)).map(([name, struct]) => {
    const clearable = struct.validate(null)[0] === undefined;
    return [name, optional(clearable ? struct : notClearable(struct))];
  }));
  return model(fields) as unknown as Struct<PatchOf<T>, unknown>;
}

/**
 * A PATCH merged inside the service's own write, into the record as that write reads it (a declared update's
 * `inputOf(before)` with `mergePatch`, lib/resources/runtime/update.ts): no read before the write and nothing to try
 * again, since the merge is made on the very row whose revision the write checks.
 */
export interface MergePatchOperation<Current, Update, Result> {
  /** The merge patch the caller sent, already validated with `patchModel`. */
  patch: PatchOf<Update>;
  /** Reads the current record (its Output reports not-found as usual): only for a patch that names no field. */
  read(): Promise<Output<Current>>;
  /**
   * What the update answers for a patch that names no field (`{}`), which writes nothing and keeps the revision. By
   * default the record's `revisionNumber` and `modifiedDate`: what every update of this layer answers.
   */
  unchanged?(current: Current): Result;
  /** The write, merging the patch into the record it reads. */
  write(patch: PatchOf<Update>): Promise<Output<Result>>;
}

/** The default `unchanged`: the update output of this layer's services, read from the record as it is. */
function currentRevision<Current extends { revisionNumber?: number }, Result>(current: Current): Result {
  const { revisionNumber, modifiedDate } = current as Current & { modifiedDate?: unknown };
  return { revisionNumber, modifiedDate } as unknown as Result;
}

/** Whether a patch names no field to change: nothing but (perhaps) the revision it expects. */
const namesNoField = (patch: object) => Object.entries(patch).every(([key, value]) => value === undefined || key === 'revisionNumber');

/**
 * A patch that changes nothing: no write, so the revision and modification date stay. A revision the caller sent is
 * still checked, as an update would: a stale one is the same 409.
 */
async function applyNothing<Current extends { revisionNumber?: number }, Result>(
  operation: Pick<MergePatchOperation<Current, unknown, Result>, 'read' | 'unchanged'>, expected: number | null | undefined,
): Promise<Output<Result>> {
  const current = await operation.read();
  const errors = currentErrors();
  if (!current.result) {
    errors.addAll(current.messages);
    return Output.of();
  }
  const now = current.result.revisionNumber;
  if (expected != null && expected !== now) {
    errors.add(MESSAGES.Entity_Concurrency({ sent: expected, now, property: 'revisionNumber' }));
    return Output.of();
  }
  return Output.of((operation.unchanged ?? currentRevision<Current, Result>)(current.result));
}

/** PATCH: a patch naming no field writes nothing (`applyNothing`); any other is the write's own merge. */
export async function applyMergePatch<Current extends { revisionNumber?: number }, Update extends { revisionNumber?: number | null }, Result>(
  operation: MergePatchOperation<Current, Update, Result>,
): Promise<Output<Result>> {
  const { patch } = operation;
  return namesNoField(patch) ? applyNothing(operation, patch.revisionNumber) : operation.write(patch);
}
