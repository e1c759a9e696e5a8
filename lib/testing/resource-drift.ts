import type { RestClient } from '../client/client.js';
import type { ProxyDescription } from '../client/operations.js';
import type { FieldSpec } from '../resources/field.js';
import type { ResourceField } from '../resources/model.js';
import type { AnyResource } from '../resources/resource.js';
import { type ProxyUnderTest, methodsOf } from './drift.js';

/** A value of a field that its route's input struct takes (type and limits; not whether a lookup entry exists). */
function sampleOf(spec: FieldSpec): unknown {
  const within = (n: number) => Math.min(Math.max(n, spec.min ?? n), spec.max ?? n);
  switch (spec.type) {
    case 'text': return 'x'.repeat(Math.max(spec.min ?? 1, 1));
    case 'lookup': return spec.lookup?.id === 'text' ? 'A' : 1;
    case 'decimal': return 1.5;
    case 'date': return new Date('2024-01-02T03:04:05.000Z');
    case 'boolean': return true;
    default: return within(1);
  }
}

/** The sample values of the fields a create takes, and of those an update takes. */
function inputsOf(fields: readonly ResourceField[]): { data: object; updated: object } {
  const inputs = fields.filter((f) => f.spec.input !== 'none');
  return {
    data: Object.fromEntries(inputs.map((f) => [f.name, sampleOf(f.spec)])),
    updated: Object.fromEntries(inputs.filter((f) => f.spec.input === 'write').map((f) => [f.name, sampleOf(f.spec)])),
  };
}

/** A child collection's methods on the proxy (`readLines`, `readLine`, `createLine`, `updateLine`, `patchLine`, `deleteLine`). */
type ChildMethod = (id: number, ...rest: (number | object)[]) => Promise<unknown>;

/** What the drift check calls a declared resource's proxy with: a sample call of each CRUD, history, restore, action and child collection method, and of each not exposed. */
type ResourceProxyInstance = Record<'read' | 'delete', (id: number) => Promise<unknown>>
  & Record<'create', (data: object) => Promise<unknown>>
  & Record<'update' | 'patch', (id: number, data: object) => Promise<unknown>>
  & Record<'readList', (criteria: object) => Promise<unknown>>
  & Record<'history', (id: number, page: object) => Promise<unknown>>;

/**
 * The drift check's view of a declared resource's proxy (`resourceProxy<typeof x>`): a valid call of each method, its
 * values made from the declaration's field types, so a field added to the declaration needs nothing here. A project's
 * drift test (`driftProblems`, `proxyDrift`) then checks that the proxy sends what the resource's routes take.
 */
export function resourceDrift(Proxy: ProxyDescription & (new (client: RestClient) => object), resource: AnyResource): (client: RestClient) => ProxyUnderTest {
  const { data, updated } = inputsOf(resource.model.fields);
  const sortable = resource.model.fields.find((f) => f.spec.sortable);
  // Each child collection's six methods, as the proxy names them (lib/client/resource-proxy.ts), the parent's revision in each write.
  const childSamples = (proxy: Record<string, ChildMethod>) => Object.fromEntries(resource.model.children.flatMap((child) => {
    const { data: own, updated: ownUpdated } = inputsOf(child.fields);
    const item = child.itemPascal;
    const property = `${child.property[0].toUpperCase()}${child.property.slice(1)}`;
    return Object.entries<() => Promise<unknown>>({
      [`read${property}`]: () => proxy[`read${property}`](1),
      [`read${item}`]: () => proxy[`read${item}`](1, 2),
      [`create${item}`]: () => proxy[`create${item}`](1, { ...own, revisionNumber: 3 }),
      [`update${item}`]: () => proxy[`update${item}`](1, 2, { ...ownUpdated, revisionNumber: 3 }),
      [`patch${item}`]: () => proxy[`patch${item}`](1, 2, { ...Object.fromEntries(Object.entries(ownUpdated).slice(0, 1)), revisionNumber: 3 }),
      [`delete${item}`]: () => proxy[`delete${item}`](1, 2, 3),
    });
  }));
  // Each action (POST …/{id}/<name>): its declared input's sample values and the record's revision.
  const actionSamples = (proxy: Record<string, (id: number, input: object) => Promise<unknown>>) => Object.fromEntries(Object.entries(resource.model.actions).map(([name, action]) => {
    const input = Object.fromEntries(Object.entries(action.input ?? {}).map(([field, declared]) => [field, sampleOf(declared.spec)]));
    return [name, () => proxy[name](1, { ...input, revisionNumber: 3 })];
  }));
  return (client) => {
    const instance = new Proxy(client);
    const proxy = instance as ResourceProxyInstance;
    return {
      description: Proxy,
      methods: methodsOf(instance),
      samples: {
        read: () => proxy.read(1),
        readList: () => proxy.readList({ skip: 10, take: 5, getTotalCount: true, ...(sortable ? { sort: [{ fieldName: sortable.name, sortDirection: 'Descending' }] } : {}) }),
        create: () => proxy.create(data),
        update: () => proxy.update(1, { ...updated, revisionNumber: 3 }),
        patch: () => proxy.patch(1, { ...Object.fromEntries(Object.entries(updated).slice(0, 1)), revisionNumber: 3 }),
        delete: () => proxy.delete(1),
        history: () => proxy.history(1, { skip: 2, take: 5 }),
        // A soft-deletable resource's restore (POST …/{id}/restore, its revision optional).
        ...(resource.model.softDelete ? { restore: () => (instance as Record<'restore', (id: number, body: object) => Promise<unknown>>).restore(1, { revisionNumber: 3 }) } : {}),
        ...childSamples(instance as Record<string, ChildMethod>),
        ...actionSamples(instance as Record<string, (id: number, input: object) => Promise<unknown>>),
        // A method the service does not expose via REST: its proxy rejects it, whatever the arguments.
        ...Object.fromEntries(Proxy.notExposed.map((name) => [name, () => (instance as Record<string, () => Promise<unknown>>)[name]()])),
      },
    };
  };
}
