import { diffChanges } from '../../audit/diff.js';
import { attachETag } from '../../etag.js';
import { Output } from '../../envelope/output.js';
import { currentErrors } from '../../envelope/request-scope.js';
import { type PatchOf, applyMergePatch, mergePatch } from '../../validation/merge-patch.js';
import type { Rule } from '../declaration.js';
import type { WireValue } from '../field.js';
import { rowState } from './audit-state.js';
import type { Runtime } from './context.js';
import { keepReferences, refersToSoftDeletable, refusedReference, writeContext } from './prepare.js';
import { read } from './read.js';
import { settle } from './settle.js';
import { checkUnique } from './unique.js';
import type { Draft } from './values.js';
import { writeRecord } from './write-record.js';

/** What an update, a patch and an action answer. */
export interface Revision {
  revisionNumber: number;
  modifiedDate: Date;
}

/** An update's input: the fields it takes and the revision to check. */
export type UpdateInput = Draft & { revisionNumber?: number | null };

/** How one write of the record's own fields goes: its name, what it takes, the input it merges in, more rules. */
interface OwnWrite {
  readonly operation: string;
  readonly takes: 'update' | 'none';
  readonly revisionNumber: number | null | undefined;
  /** The fields the write gives before the record is read: their references are resolved and unique values checked. */
  readonly given: Draft;
  /** The input, given the record as stored (a PATCH merges into it). */
  inputOf(before: Draft): Draft;
  /** An action's own work, run before the resource's rules. */
  readonly first?: Rule;
}

/**
 * A write of the record's own fields (lib/resources/runtime/write-record.ts: two statements on PostgreSQL, one
 * transaction on SQLite): references and unique values checked before, then on the row the write reads the record
 * settled (inputs, defaults, lookups, rules, derived values) and its changed columns stored with the next revision
 * and the audit entry of the rows before and after.
 */
async function writeOwn(runtime: Runtime, id: number, write: OwnWrite): Promise<Output<Revision>> {
  const { model, table, storage } = runtime;
  const context = await writeContext(runtime, write.operation, write.takes, write.given);
  currentErrors().abortIfHasErrors();
  await checkUnique(runtime, write.given, id);
  const settled = write.first ? { ...runtime.settled, rules: [write.first, ...runtime.settled.rules] } : runtime.settled;
  const done = await refusedReference(runtime, () => writeRecord(storage, runtime.db, model, { id, revisionNumber: write.revisionNumber }, {
    columns: (current) => {
      const before = table.fromColumns(current);
      return table.toColumns(settle(settled, write.inputOf(before), before, context));
    },
    audit: (before, after) => ({ entity: model.name, recordId: id, operation: write.operation, changes: diffChanges(rowState(runtime, before), rowState(runtime, after)) }),
    // A reference the write gives to a soft-deletable record is read again under a lock, as a create's is: resolved
    // before the transaction, it could be deleted meanwhile (and the delete would not see this record refer to it).
    ...(refersToSoftDeletable(model.fields, write.given) ? { keep: (trx) => keepReferences(trx, runtime, model.fields, write.given) } : {}),
    also: runtime.versions.also,
  }), [[model.fields, write.given, '']]);
  if (!done) return Output.of();
  // The record's new ETag, from the versions the write read and wrote: no read of the record after it.
  const revision: Revision = { revisionNumber: done.revisionNumber, modifiedDate: done.modifiedDate };
  const tag = runtime.versions.writtenTag(done.before, done.after);
  return Output.of(tag ? attachETag(revision, tag) : revision);
}

/** `PUT /<resource>/{id}`: the fields it takes replace the stored ones (an optional one left out is cleared). */
export function update(runtime: Runtime, id: number, input: UpdateInput): Promise<Output<Revision>> {
  return writeOwn(runtime, id, { operation: 'update', takes: 'update', revisionNumber: input.revisionNumber, given: input, inputOf: () => input });
}

/** The stored values of the fields an update takes: what a merge patch is applied to. */
function updateInputOf(runtime: Runtime, before: Draft): UpdateInput {
  return Object.fromEntries(runtime.model.fields.filter((f) => f.spec.input === 'write' && before[f.name] !== undefined).map((f) => [f.name, before[f.name]]));
}

/**
 * `PATCH /<resource>/{id}` (JSON merge patch): merged into the record as the write reads it, so there is no read
 * before the write and nothing to try again; a patch naming no field writes nothing and keeps the revision.
 */
export function patch(runtime: Runtime, id: number, body: PatchOf<UpdateInput>): Promise<Output<Revision>> {
  return applyMergePatch<Revision & Draft, UpdateInput, Revision>({
    patch: body,
    read: async () => (await read(runtime, id)) as Output<Revision & Draft>,
    write: (named) => writeOwn(runtime, id, {
      operation: 'patch', takes: 'update', revisionNumber: named.revisionNumber,
      given: Object.fromEntries(Object.entries(named).filter((entry): entry is [string, WireValue] => entry[1] != null)),
      inputOf: (before) => mergePatch<UpdateInput>(updateInputOf(runtime, before), named),
    }),
  });
}

/**
 * `POST /<resource>/{id}/<action's path>`: the action's `run` sets the record's fields (the record is otherwise kept as
 * stored), then the resource's rules, derived values and the write as an update's, audited under the action's
 * operation (its path, `mark-paid`, unless it declares one).
 */
export function act(runtime: Runtime, name: string, id: number, input: UpdateInput): Promise<Output<Revision>> {
  const action = runtime.model.actions[name];
  return writeOwn(runtime, id, {
    operation: action.audit, takes: 'none', revisionNumber: input.revisionNumber, given: {}, inputOf: () => ({}),
    first: (change) => action.run({ ...change, input }),
  });
}
