import { randomBytes } from 'node:crypto';
import Big from 'big.js';
import { type Transaction, sql } from 'kysely';
import { diffChanges } from '../../audit/diff.js';
import { recordAudit } from '../../audit/record-audit.js';
import { MESSAGES } from '../../envelope/message-catalogue.js';
import { Output } from '../../envelope/output.js';
import { currentErrors } from '../../envelope/request-scope.js';
import { inTransaction } from '../../storage/transaction.js';
import { MONEY_LIMIT, fitsMoney } from '../../validation/money.js';
import { assertInReach } from '../reach.js';
import { creatingTenant } from '../../storage/record-scope.js';
import { childrenState, recordState } from './audit-state.js';
import type { ChildRuntime, Runtime } from './context.js';
import { type GivenReferences, childReferences, keepReferences, refusedReference, writeContext } from './prepare.js';
import { derive, settle } from './settle.js';
import { checkUnique } from './unique.js';
import type { Draft, Row } from './values.js';

/** The input of a create: the record's fields and, per child collection, its items. */
export type CreateInput = Draft & { readonly [children: string]: unknown };

/** Children inserted per statement: a parameter list within every store's limits. */
const BATCH = 500;

/** A child collection's items as `input` carries them. */
const itemsOf = (input: CreateInput, child: ChildRuntime) => (input[child.model.property] ?? []) as readonly Draft[];

/** The totals of a parent's money fields over the children settled for it, exactly (decimal), or undefined past the money range. */
function sumsOf(runtime: Runtime, children: ReadonlyMap<ChildRuntime, Draft[]>): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const f of runtime.model.fields) {
    if (!f.spec.sum) continue;
    const child = runtime.children.find((c) => c.model.property === f.spec.sum!.children)!;
    const total = (children.get(child) ?? []).reduce((sum, item) => sum.plus(Number(item[f.spec.sum!.field] ?? 0)), new Big(0));
    if (!fitsMoney(total)) currentErrors().add(MESSAGES.Amount_TooLarge({ amount: total.toFixed(), limit: MONEY_LIMIT.toFixed(), property: f.name }));
    sums[f.name] = total.toNumber();
  }
  return sums;
}

/** INSERT of a row of `table` with `columns`, answering its key. */
export async function insert(trx: Transaction<unknown>, table: string, key: string, columns: Record<string, unknown>): Promise<number> {
  const names = Object.keys(columns);
  const { rows } = await sql<{ key: number }>`insert into ${sql.table(table)} (${sql.join(names.map((n) => sql.ref(n)))})
    values (${sql.join(names.map((n) => columns[n]))}) returning ${sql.ref(key)} as ${sql.id('key')}`.execute(trx);
  return Number(rows[0].key);
}

/** The children of a new parent, in batches, and their rows as stored (their audit state names them by their keys). */
async function insertChildren(trx: Transaction<unknown>, runtime: Runtime, child: ChildRuntime, id: number, items: readonly Draft[]): Promise<Row[]> {
  if (!items.length) return [];
  const rows = items.map((item) => ({ ...child.table.toColumns(item), [child.model.parentColumn]: id }));
  const names = Object.keys(rows[0]);
  for (let i = 0; i < rows.length; i += BATCH) {
    const values = rows.slice(i, i + BATCH).map((row) => sql`(${sql.join(names.map((n) => row[n]))})`);
    await sql`insert into ${sql.table(child.model.table)} (${sql.join(names.map((n) => sql.ref(n)))}) values ${sql.join(values)}`.execute(trx);
  }
  return (await sql<Row>`select * from ${sql.table(child.model.table)} where ${sql.ref(child.model.parentColumn)} = ${id}
    order by ${sql.ref(child.model.keyColumn)}`.execute(trx)).rows;
}

/**
 * `POST /<resource>`: the record with its children, whole or not at all. Before any transaction: the children's cap
 * (400 Document_TooManyLines), references and lookups, each child and the record settled (defaults, rules, derived
 * values, totals) with every problem on its property (`lines[2].orderQty`), the unique fields. Then one transaction:
 * the record (a text derived from the key set once the key is known), its children, the reach check of the record as
 * written (a caller may not create what their scope does not reach: 403), and the audit entry.
 */
export async function create(runtime: Runtime, input: CreateInput): Promise<Output<Draft>> {
  const { model, table, storage } = runtime;
  const errors = currentErrors();
  for (const child of runtime.children) {
    const count = itemsOf(input, child).length;
    if (count > runtime.limits.maxLines) {
      errors.add(MESSAGES.Document_TooManyLines({ entity: model.entity, maxLines: runtime.limits.maxLines, property: child.model.property }));
      return Output.of();
    }
  }
  const context = await writeContext(runtime, 'create', 'create', input);
  const references = new Map<ChildRuntime, Awaited<ReturnType<typeof childReferences>>>();
  for (const child of runtime.children) references.set(child, await childReferences(runtime, child, itemsOf(input, child)));
  const settledChildren = new Map(runtime.children.map((child) => [child, itemsOf(input, child).map((item, i) =>
    settle(child.settled, item, undefined, { ...context, references: references.get(child)![i], prefix: `${child.model.property}[${i}].` }))]));
  const after = settle(runtime.settled, input, undefined, context, sumsOf(runtime, settledChildren));
  errors.abortIfHasErrors();
  await checkUnique(runtime, after);
  const keyed = model.fields.filter((f) => f.spec.derived?.from.length === 1 && f.spec.derived.from[0] === model.key);
  const now = context.now;
  const given: GivenReferences[] = [[model.fields, after, ''], ...[...settledChildren].flatMap(([child, items]) =>
    items.map((item, i): GivenReferences => [child.model.fields, item, `${child.model.property}[${i}].`]))];
  const id = await refusedReference(runtime, () => inTransaction(runtime.db, async (trx) => {
    const checked = new Set<string>();
    await keepReferences(trx, runtime, model.fields, after, '', checked);
    for (const [child, items] of settledChildren) {
      for (const [i, item] of items.entries()) await keepReferences(trx, runtime, child.model.fields, item, `${child.model.property}[${i}].`, checked);
    }
    const columns = table.toColumns(after, '', (f) => keyed.includes(f));
    // A text derived from the key (an order's number) takes a unique stand-in until the key is known, in the same transaction.
    for (const f of keyed) columns[f.column] = `new-${randomBytes(8).toString('hex')}`;
    const tenant = model.tenant ? { [model.tenant]: creatingTenant() } : {};
    const created = await insert(trx, model.table, model.keyColumn, { ...columns, ...tenant, [model.revision]: 1, [model.modified]: storage.values.date(now) });
    if (keyed.length) {
      derive(runtime.settled, after, created);
      await sql`update ${sql.table(model.table)} set ${sql.join(keyed.map((f) => sql`${sql.ref(f.column)} = ${after[f.name] ?? null}`))}
        where ${sql.ref(model.keyColumn)} = ${created}`.execute(trx);
    }
    let state = recordState(after, 1);
    for (const [child, items] of settledChildren) state = { ...state, ...childrenState(child, await insertChildren(trx, runtime, child, created, items)) };
    await assertInReach(trx, model, created);
    await recordAudit(trx, { entity: model.name, recordId: created, operation: 'create', changes: diffChanges(undefined, state) });
    return created;
  }), given);
  return Output.of({ [model.key]: id, ...Object.fromEntries(keyed.map((f) => [f.name, after[f.name]])), revisionNumber: 1, modifiedDate: now });
}
