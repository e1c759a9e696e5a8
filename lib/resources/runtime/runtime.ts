import type { Kysely } from 'kysely';
import type { HistoryPage } from '../../audit/audit-models.js';
import { type HistorySource, readHistory } from '../../audit/read-history.js';
import type { Output } from '../../envelope/output.js';
import type { ListCriteria, ListDefinition } from '../../storage/list-query.js';
import type { PatchOf } from '../../validation/merge-patch.js';
import type { ResourceField, ResourceModel } from '../model.js';
import { historyReachOf } from '../reach.js';
import type { ChildRuntime, Runtime, RuntimeOptions } from './context.js';
import { type ChildInput, createChild, deleteChild, patchChild, updateChild } from './child-operations.js';
import { type CreateInput, create } from './create.js';
import { remove } from './delete.js';
import { restore } from './restore.js';
import { childrenStatement, recordStatement } from './read-statement.js';
import { read, readChild, readChildren, readList, readTag } from './read.js';
import { TableIo } from './table-io.js';
import { type UpdateInput, act, patch, update } from './update.js';
import { recordVersions } from './version-tag.js';

/** A resource's runtime on one store: its tables' conversions and kept statements, built once per server. */
export function runtimeOf(model: ResourceModel, list: ListDefinition<string>, options: RuntimeOptions): Runtime {
  const { values } = options.storage;
  const table = new TableIo(values, model, model.table);
  const children: ChildRuntime[] = model.children.map((c) => {
    const io = new TableIo(values, c, c.property, `${c.property}__`);
    return {
      model: c, table: io,
      settled: { fields: c.fields, rules: c.rules, codes: model.pascal, key: c.key },
      readAll: childrenStatement(model, model.table, io, false, options.limits.maxLines),
      readOne: childrenStatement(model, model.table, io, true, options.limits.maxLines),
    };
  });
  // The read's shape: what tells apart two answers of the same rows (the keys and fields as written, the derivations
  // as declared, the children's cap). A derivation changed and applied to stored rows (deriveStored) moves no
  // revision, so its text is part of every tag.
  const described = (key: string, fields: readonly ResourceField[]) =>
    [key, ...fields.map((f) => [f.name, f.column, f.value.type, f.spec.derived ? String(f.spec.derived.compute) : ''])];
  const shape = JSON.stringify([described(model.key, model.fields), ...model.children.map((c) => [c.property, described(c.key, c.fields)]), options.limits.maxLines]);
  const versions = recordVersions(model, table, children.map((c) => c.table), values, shape);
  return {
    ...options,
    model,
    db: options.storage.db as unknown as Kysely<unknown>,
    table,
    settled: { fields: model.fields, rules: model.rules, codes: model.pascal, key: model.key },
    children,
    list,
    readRecord: recordStatement(model, table, children.map((c) => c.table), options.limits.maxLines, versions.columns),
    versions,
  };
}

/** An operation of a resource's service, as the runtime has it (the typed service is the resource's, lib/resources/resource.ts). */
export type Operation = (...args: never[]) => Promise<Output<unknown>>;

/**
 * The layer's own `read` operations, each with the read of its record's tag alone (./read.ts, readTag). A `read` a
 * declaration's `service` replaced is not in here: If-Match and a write's new tag read the record through it, and
 * take the tag it answers with (the one defaults.read attached, or the digest of another object).
 */
export const tagReads = new WeakMap<Operation, (id: number) => Promise<Output<unknown>>>();

/**
 * The operations of a resource's service, by method name: the CRUD every resource has, each child collection's
 * (`readLines`, `readLine`, `createLine`…) and each action's. Their types are the resource's (ResourceService).
 */
export function operationsOf(runtime: Runtime): Record<string, Operation> {
  const { model, storage } = runtime;
  const history: HistorySource = {
    entity: model.name, table: model.table, key: model.keyColumn, deletePermission: model.permissions.delete, name: model.entity,
    reach: (alias) => historyReachOf(model, alias),
    ...(model.softDelete ? { kept: true } : {}),
  };
  const operations: Record<string, Operation> = {
    read: (id: number) => read(runtime, id),
    readList: (criteria: ListCriteria<string>) => readList(runtime, criteria),
    create: (data: CreateInput) => create(runtime, data),
    update: (id: number, data: UpdateInput) => update(runtime, id, data),
    patch: (id: number, data: PatchOf<UpdateInput>) => patch(runtime, id, data),
    delete: (id: number, revisionNumber?: number) => remove(runtime, id, revisionNumber),
    history: (id: number, page: HistoryPage = {}) => readHistory(storage, history, id, page, runtime.limits.maxRows),
  };
  tagReads.set(operations.read, (id: number) => readTag(runtime, id));
  if (model.softDelete) operations.restore = (id: number, input?: { revisionNumber?: number | null }) => restore(runtime, id, input);
  for (const child of runtime.children) {
    const { property, itemPascal } = child.model;
    operations[`read${property.charAt(0).toUpperCase()}${property.slice(1)}`] = (id: number) => readChildren(runtime, child, id);
    operations[`read${itemPascal}`] = (id: number, childId: number) => readChild(runtime, child, id, childId);
    operations[`create${itemPascal}`] = (id: number, data: ChildInput) => createChild(runtime, child, id, data);
    operations[`update${itemPascal}`] = (id: number, childId: number, data: ChildInput) => updateChild(runtime, child, id, childId, data);
    operations[`patch${itemPascal}`] = (id: number, childId: number, data: PatchOf<ChildInput>) => patchChild(runtime, child, id, childId, data);
    operations[`delete${itemPascal}`] = (id: number, childId: number, revisionNumber?: number) => deleteChild(runtime, child, id, childId, revisionNumber);
  }
  for (const name of Object.keys(model.actions)) {
    operations[name] = (id: number, input: UpdateInput) => act(runtime, name, id, input);
  }
  return operations;
}
