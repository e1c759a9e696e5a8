import { Output } from '../../envelope/output.js';
import { currentErrors } from '../../envelope/request-scope.js';
import { MESSAGES } from '../../envelope/message-catalogue.js';
import { type PatchOf, applyMergePatch, mergePatch } from '../../validation/merge-patch.js';
import type { WireValue } from '../field.js';
import { totalsOf } from '../models.js';
import { type ChildWriteResult, writeChild } from './child-write.js';
import type { ChildRuntime, Runtime } from './context.js';
import { read } from './read.js';
import type { Draft } from './values.js';

/** A child's input: its fields and the parent's revision to check. */
export type ChildInput = Draft & { revisionNumber?: number | null };

/** The fields of a body that name a value (a merge patch's nulls clear, they resolve nothing). */
const given = (input: Draft) => Object.fromEntries(Object.entries(input).filter((entry): entry is [string, WireValue] => entry[1] != null && entry[0] !== 'revisionNumber'));

/** The child's fields as the body of its PUT would give them: what a merge patch is applied to. */
function inputOf(child: ChildRuntime, before: Draft): ChildInput {
  return Object.fromEntries(child.model.fields.filter((f) => f.spec.input === 'write' && before[f.name] !== undefined).map((f) => [f.name, before[f.name]]));
}

/** `POST /<resource>/{id}/<path>`: a new child; answers its key, its computed fields, the parent's totals and revision. */
export function createChild(runtime: Runtime, child: ChildRuntime, id: number, input: ChildInput): Promise<Output<ChildWriteResult>> {
  return writeChild(runtime, child, {
    id, revisionNumber: input.revisionNumber, operation: `${child.model.item}-create`, takes: 'create', given: given(input), inputOf: () => input,
  });
}

/** `PUT /<resource>/{id}/<path>/{childId}`: the child's fields replaced (an optional one left out is cleared). */
export function updateChild(runtime: Runtime, child: ChildRuntime, id: number, childId: number, input: ChildInput): Promise<Output<ChildWriteResult>> {
  return writeChild(runtime, child, {
    id, childId, revisionNumber: input.revisionNumber, operation: `${child.model.item}-update`, takes: 'update', given: given(input), inputOf: () => input,
  });
}

/**
 * What a patch naming no field answers, from one read of the parent with its children: the child's key and computed
 * fields, the parent's totals and revision, as a write would (nothing is written).
 */
async function unchanged(runtime: Runtime, child: ChildRuntime, id: number, childId: number): Promise<Output<ChildWriteResult>> {
  const record = (await read(runtime, id)).result;
  if (!record) return Output.of();
  const found = (record[child.model.property] as Draft[]).find((c) => c[child.model.key] === childId);
  if (!found) {
    currentErrors().add(MESSAGES.Entity_NotFound({ entity: child.model.entity, id: childId }));
    return Output.of();
  }
  const computed = child.model.fields.filter((f) => f.stored && f.spec.input === 'none').map((f) => [f.name, found[f.name]]);
  return Output.of({
    [child.model.key]: childId, ...Object.fromEntries(computed),
    ...Object.fromEntries(totalsOf(runtime.model).map((f) => [f.name, record[f.name]])),
    revisionNumber: record.revisionNumber as number,
  } as ChildWriteResult);
}

/** `PATCH /<resource>/{id}/<path>/{childId}` (JSON merge patch): merged into the child as the write reads it. */
export function patchChild(runtime: Runtime, child: ChildRuntime, id: number, childId: number, body: PatchOf<ChildInput>): Promise<Output<ChildWriteResult>> {
  return applyMergePatch<ChildWriteResult, ChildInput, ChildWriteResult>({
    patch: body,
    read: () => unchanged(runtime, child, id, childId),
    unchanged: (current) => current,
    write: (named) => writeChild(runtime, child, {
      id, childId, revisionNumber: named.revisionNumber, operation: `${child.model.item}-patch`, takes: 'update', given: given(named as Draft),
      inputOf: (before) => mergePatch<ChildInput>(inputOf(child, before!), named),
    }),
  });
}

/** `DELETE /<resource>/{id}/<path>/{childId}`: the child removed; `revisionNumber` (the parent's, optional) is checked. */
export function deleteChild(runtime: Runtime, child: ChildRuntime, id: number, childId: number, revisionNumber?: number): Promise<Output<ChildWriteResult>> {
  return writeChild(runtime, child, {
    id, childId, revisionNumber, operation: `${child.model.item}-delete`, takes: 'update', given: {}, inputOf: () => undefined,
  });
}
