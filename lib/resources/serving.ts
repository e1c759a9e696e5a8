import type { UniqueKey } from '../storage/unique-violation.js';
import type { ReferringTable } from './declaration.js';
import { type ResourceModel, targetModel } from './model.js';
import { wordsOf } from './names.js';

/** What the wiring needs of the resources an application serves. */
interface Served {
  readonly model: ResourceModel;
}

/**
 * The tables whose rows refer to each resource's records: those its declaration names (`referredToBy`) and those of
 * every other resource's reference fields and its children's (an order's `customerId`), so deleting a customer its orders refer to
 * answers which of them do, though the customer's declaration knows nothing of orders.
 */
export function referrersOf(resources: readonly Served[]): Map<ResourceModel, ReferringTable[]> {
  const referrers = new Map<ResourceModel, ReferringTable[]>(resources.map(({ model }) => [model, [...model.referredToBy]]));
  for (const { model } of resources) {
    for (const f of model.fields) {
      if (f.spec.type !== 'reference' || !f.stored) continue;
      const list = referrers.get(targetModel(f.spec.reference!));
      if (list && !list.some((r) => r.table === model.table && r.column === f.column)) {
        list.push({ table: model.table, column: f.column, name: wordsOf(model.name), ...(model.softDelete ? { softDelete: model.softDelete } : {}) });
      }
    }
    // A child's references (an invoice line's shipTo) refer as well. Its rows count whether or not their parent is
    // deleted (a deleted parent keeps its children until purge removes both): a record they name stays until then.
    for (const child of model.children) {
      for (const f of child.fields) {
        if (f.spec.type !== 'reference' || !f.stored) continue;
        const list = referrers.get(targetModel(f.spec.reference!));
        if (list && !list.some((r) => r.table === child.table && r.column === f.column)) {
          list.push({ table: child.table, column: f.column, name: `${wordsOf(model.name)} ${wordsOf(child.item)}` });
        }
      }
    }
  }
  return referrers;
}

/** The name of the unique index of a unique field, as `restlayer migration make` creates it. */
export const uniqueIndexName = (table: string, column: string) => `ux_${table}_${column}`;

/** The unique keys of a resource: a violation of one answers 409 Entity_Duplicate on its field (an index on lower(column) too). */
export function uniqueKeysOf({ model }: Served): UniqueKey[] {
  return model.fields.filter((f) => f.spec.unique && f.stored).map((f) => ({ index: uniqueIndexName(model.table, f.column), property: f.name }));
}
