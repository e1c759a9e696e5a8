import Big from 'big.js';
import { type Transaction, sql } from 'kysely';
import { diffChanges } from '../../audit/diff.js';
import { attachETag } from '../../etag.js';
import { recordAudit } from '../../audit/record-audit.js';
import { MESSAGES } from '../../envelope/message-catalogue.js';
import { Output } from '../../envelope/output.js';
import { currentErrors } from '../../envelope/request-scope.js';
import { inTransaction } from '../../storage/transaction.js';
import { MONEY_LIMIT, fitsMoney } from '../../validation/money.js';
import type { WireRecord } from '../field.js';
import { totalsOf } from '../models.js';
import { assertInReach } from '../reach.js';
import { childrenState, rowState } from './audit-state.js';
import type { ChildRuntime, Runtime } from './context.js';
import { insert } from './create.js';
import { keepReferences, refusedReference, writeContext } from './prepare.js';
import { type WriteContext, derive, entriesOf, runRules, settle } from './settle.js';
import { type Draft, type Row, sameValue } from './values.js';
import { isStale, readForWrite } from './write-record.js';

/** What a child write answers: the child's key and computed fields (absent after a delete), the parent's totals and revision. */
export type ChildWriteResult = Draft & { revisionNumber: number };

/** One write of a child: which one, what it takes, and the input given the child as stored (none: a delete). */
export interface ChildWrite {
  readonly id: number;
  /** Undefined for a new child. */
  readonly childId?: number;
  readonly revisionNumber: number | null | undefined;
  /** `line-create`, `line-update`, `line-patch`, `line-delete`. */
  readonly operation: string;
  readonly takes: 'create' | 'update';
  /** The fields the body gives, before the child is read: their references are resolved before the transaction. */
  readonly given: Draft;
  /** The child's input, given the child as stored (a PATCH merges into it); undefined: the child is deleted. */
  inputOf(before: Draft | undefined): Draft | undefined;
}

/** The parent's fields a write of `child` moves: the totals over it and what is derived from them. */
function movedBy(runtime: Runtime, child: ChildRuntime) {
  const moved = totalsOf(runtime.model);
  return runtime.table.stored.filter((io) => moved.includes(io.field) && (!io.field.spec.sum || io.field.spec.sum.children === child.model.property));
}

/**
 * The parent as a write of `child` leaves it: its totals over the child as stored now (one statement: a SUM per
 * total, exact in both stores' money columns); then the parent's own rules, since a write of a child is a change of
 * its parent (a paid invoice's lines cannot change either; a rule may also set the parent's fields); then what is
 * derived. Refusals are thrown, so the transaction rolls back with the child's row it has written.
 */
async function settleParent(trx: Transaction<unknown>, runtime: Runtime, child: ChildRuntime, id: number, parent: Draft, context: WriteContext): Promise<Draft> {
  const errors = currentErrors();
  const sums = runtime.model.fields.filter((f) => f.spec.sum?.children === child.model.property);
  const after: Draft = { ...parent };
  if (sums.length) {
    const columns = sums.map((f, i) => {
      const summed = child.model.fields.find((c) => c.name === f.spec.sum!.field)!;
      return sql`sum(${sql.ref(summed.column)}) as ${sql.id(`s${i}`)}`;
    });
    const row = (await sql<Row>`select ${sql.join(columns)} from ${sql.table(child.model.table)}
      where ${sql.ref(child.model.parentColumn)} = ${id}`.execute(trx)).rows[0];
    sums.forEach((f, i) => {
      const total = new Big(runtime.storage.values.toMoney(row[`s${i}`] as string | number | null));
      if (!fitsMoney(total)) errors.add(MESSAGES.Amount_TooLarge({ amount: total.toFixed(), limit: MONEY_LIMIT.toFixed(), property: f.name }));
      after[f.name] = total.toNumber();
    });
  }
  // A total past the money range is refused on its own property, not again on what derives from it.
  errors.abortIfHasErrors();
  // The child's references are not the parent's: a parent's rule finds none resolved here.
  const { settled } = runtime;
  runRules(settled.rules, { ...context, references: new Map(), parent: undefined, prefix: undefined }, parent as WireRecord, after, entriesOf(settled.fields, context.lookups, after));
  errors.abortIfHasErrors();
  // A text from the key (an order's number) stays as stored; everything else derived follows the totals and the rules.
  derive({ ...settled, fields: settled.fields.filter((f) => f.spec.derived && !f.spec.sum && !f.spec.derived.from.includes(settled.key)) }, after, id);
  errors.abortIfHasErrors();
  return after;
}

/**
 * A write of one child (its POST, PUT, PATCH or DELETE), in one transaction with its parent: the parent read through
 * the caller's reach and locked (404 outside it), the child found among the parent's (a child of another parent is a
 * 404 like an unknown one), the parent's revision checked (409), the cap of a new child (Documents:MaxLines → 400
 * Document_TooManyLines on the children's property, counted under the lock so two adds at the cap cannot both pass),
 * the child settled (lookups, defaults, its rules with `change.parent`, derived values) and written, the parent's
 * totals recomputed from its children, the parent's rules run, what derives recomputed, its revision and modified date bumped, the reach
 * check of the parent as written (403), and one audit entry of the parent's with the child's fields
 * (`lines[<id>].orderQty`).
 */
export async function writeChild(runtime: Runtime, child: ChildRuntime, write: ChildWrite): Promise<Output<ChildWriteResult>> {
  const { model, storage } = runtime;
  const errors = currentErrors();
  const context = await writeContext(runtime, write.operation, write.takes, write.given, new Date(), child.model.fields);
  errors.abortIfHasErrors();
  const result = await refusedReference(runtime, () => inTransaction(runtime.db, async (trx) => {
    const parentRow = await readForWrite(trx, storage, model, write.id, sql`*`, true, runtime.versions.also);
    if (!parentRow) return undefined;
    // The soft-deletable records the child's fields name, read again under a lock, as a create's are.
    await keepReferences(trx, runtime, child.model.fields, write.given);
    const { table, keyColumn, parentColumn, property } = child.model;
    let childRow: Row | undefined;
    if (write.childId !== undefined) {
      childRow = (await sql<Row>`select * from ${sql.table(table)}
        where ${sql.ref(keyColumn)} = ${write.childId} and ${sql.ref(parentColumn)} = ${write.id}`.execute(trx)).rows[0];
      if (!childRow) {
        errors.add(MESSAGES.Entity_NotFound({ entity: child.model.entity, id: write.childId }));
        return undefined;
      }
    }
    if (isStale(model, { id: write.id, revisionNumber: write.revisionNumber }, parentRow[model.revision])) return undefined;
    if (write.childId === undefined) {
      const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)} where ${sql.ref(parentColumn)} = ${write.id}`.execute(trx);
      if (Number(rows[0].n) >= runtime.limits.maxLines) {
        errors.add(MESSAGES.Document_TooManyLines({ entity: model.entity, maxLines: runtime.limits.maxLines, property }));
        return undefined;
      }
    }
    const parent = runtime.table.fromColumns(parentRow);
    const before = childRow ? child.table.fromColumns(childRow) : undefined;
    const input = write.inputOf(before);
    const after = input && settle(child.settled, input, before, { ...context, parent: { [model.key]: write.id, ...parent } as WireRecord });
    errors.abortIfHasErrors();
    let childId = write.childId;
    let written: Row | undefined;
    if (after) {
      const columns = child.table.toColumns(after);
      errors.abortIfHasErrors();
      if (childId === undefined) childId = await insert(trx, table, keyColumn, { ...columns, [parentColumn]: write.id });
      else await sql`update ${sql.table(table)} set ${sql.join(Object.entries(columns).map(([c, v]) => sql`${sql.ref(c)} = ${v}`))}
        where ${sql.ref(keyColumn)} = ${childId}`.execute(trx);
      written = { ...childRow, ...columns, [keyColumn]: childId };
    } else {
      await sql`delete from ${sql.table(table)} where ${sql.ref(keyColumn)} = ${childId}`.execute(trx);
    }
    const totals = await settleParent(trx, runtime, child, write.id, parent, context);
    const now = new Date();
    // The totals over this child and what derives from them, and whatever else the parent's rules changed.
    const totalled = movedBy(runtime, child);
    const moved = Object.fromEntries(runtime.table.stored
      .filter((io) => totalled.includes(io) || !sameValue(parent[io.field.name], totals[io.field.name]))
      .map((io) => [io.field.column, io.write(totals[io.field.name], io.field.name)]));
    errors.abortIfHasErrors();
    const revision = Number(parentRow[model.revision]) + 1;
    await sql`update ${sql.table(model.table)} set ${sql.join([
      ...Object.entries(moved).map(([c, v]) => sql`${sql.ref(c)} = ${v}`),
      sql`${sql.ref(model.revision)} = ${revision}`, sql`${sql.ref(model.modified)} = ${storage.values.date(now)}`,
    ])} where ${sql.ref(model.keyColumn)} = ${write.id}`.execute(trx);
    await assertInReach(trx, model, write.id);
    const parentAfter = { ...parentRow, ...moved, [model.revision]: revision, [model.modified]: storage.values.date(now) };
    await recordAudit(trx, {
      entity: model.name, recordId: write.id, operation: write.operation,
      changes: diffChanges(
        { ...rowState(runtime, parentRow), ...childrenState(child, childRow ? [childRow] : []) },
        { ...rowState(runtime, parentAfter), ...childrenState(child, written ? [written] : []) },
      ),
    });
    const computed = after ? Object.fromEntries(child.model.fields.filter((f) => f.stored && f.spec.input === 'none').map((f) => [f.name, after[f.name]])) : {};
    const answer: ChildWriteResult = {
      ...(after ? { [child.model.key]: childId } : {}), ...computed,
      ...Object.fromEntries(movedBy(runtime, child).map((io) => [io.field.name, totals[io.field.name]])),
      revisionNumber: revision,
    };
    // The parent's new ETag, from the versions this write read and wrote: no read of the parent after it.
    const tag = runtime.versions.writtenTag(parentRow, parentAfter);
    return tag ? attachETag(answer, tag) : answer;
  }), [[child.model.fields, write.given, '']]);
  return Output.of(result);
}
