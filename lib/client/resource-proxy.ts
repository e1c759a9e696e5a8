import type { Output } from '../envelope/output.js';
import type { ChildKey, ChildPath, ChildRead, ListItemOf, ReadOf, ResourceService, Shape } from '../resources/wire-types.js';
import type { RestClient } from './client.js';
import { criteriaToQuery } from './criteria.js';
import type { DateKeys } from './dates.js';
import { type OperationRoute, type ProxyDescription, notExposed } from './operations.js';
import { camelCase, kebabCase, pascalCase, upperFirst } from './resource-names.js';

/** The shape of a declared resource (`typeof customer`), read from its type alone: the declaration is never imported. */
export type ShapeOf<R> = R extends { readonly shape?: infer S extends Shape } ? S : never;

/** Every property of a resource's answers that is a Date: the proxy revives exactly those. */
type DatesOf<S extends Shape> = DateKeys<ReadOf<S>> | DateKeys<ListItemOf<S>> | { [C in keyof S['children']]: DateKeys<ChildRead<S, C>> }[keyof S['children']];

type HasAny<T> = [keyof T] extends [never] ? false : true;

/**
 * Where a resource is served and what its answers hold, checked by the compiler against the declaration's type: its
 * name and key, every Date property (all of them, no other), each child collection's item, path and key, the actions
 * (none but declared ones; `restlayer migration make` adds those missing, as it adds `softDelete`).
 * It is all a proxy needs at run time, so a browser bundle never loads the declaration (which imports the server).
 */
export type ProxyAddress<S extends Shape, N extends string = never> = {
  readonly name: S['name'];
  readonly key: S['key'];
  readonly dates: { readonly [K in DatesOf<S>]: true };
  /** Methods of the service on the server that are not exposed via REST: the proxy rejects them (OperationNotSupportedError). */
  readonly notExposed?: readonly N[];
  /** The declaration says `softDelete`: the proxy has `restore` (and `readList` takes `deleted`). */
  readonly softDelete?: true;
}
  & (HasAny<S['children']> extends true
    ? { readonly children: { readonly [C in keyof S['children']]: { readonly item: S['children'][C]['item']; readonly path: ChildPath<S, C>; readonly key: ChildKey<S, C> } } }
    : unknown)
  // Optional, as softDelete is: `migration make` adds what the declaration serves, so the build that precedes it passes;
  // a proxy without an action it should have fails its drift test (`resourceDrift` calls every declared one).
  & (HasAny<S['actions']> extends true ? { readonly actions?: { readonly [A in keyof S['actions']]: true } } : unknown);

/** The run-time view of an address, whatever the resource. */
interface Address {
  readonly name: string;
  readonly key: string;
  readonly dates: Readonly<Record<string, true>>;
  readonly notExposed?: readonly string[];
  readonly children?: Readonly<Record<string, { item: string; path: string; key: string }>>;
  readonly actions?: Readonly<Record<string, true>>;
  readonly softDelete?: true;
}

/** A proxy class: the resource's service over HTTP, and what the drift check reads of it. */
export interface ProxyClass<Service> extends ProxyDescription {
  new (client: RestClient): Service;
}

/** The verb and path of every operation of a resource, by method name (as its routes serve them). */
function operationsOf(address: Address): Record<string, OperationRoute> {
  const base = `/${address.name}`;
  const item = `${base}/{_${address.key}}`;
  const operations: Record<string, OperationRoute> = {
    read: { verb: 'GET', path: item },
    readList: { verb: 'GET', path: base },
    create: { verb: 'POST', path: base },
    update: { verb: 'PUT', path: item },
    patch: { verb: 'PATCH', path: item },
    delete: { verb: 'DELETE', path: item },
    history: { verb: 'GET', path: `${item}/history` },
  };
  for (const [property, child] of Object.entries(address.children ?? {})) {
    const list = `${item}/${child.path}`;
    const one = `${list}/{_${child.key}}`;
    const itemName = upperFirst(camelCase(child.item));
    operations[`read${upperFirst(property)}`] = { verb: 'GET', path: list };
    operations[`read${itemName}`] = { verb: 'GET', path: one };
    operations[`create${itemName}`] = { verb: 'POST', path: list };
    operations[`update${itemName}`] = { verb: 'PUT', path: one };
    operations[`patch${itemName}`] = { verb: 'PATCH', path: one };
    operations[`delete${itemName}`] = { verb: 'DELETE', path: one };
  }
  // An action's method is its key (`markPaid`), its path the key in kebab-case (`…/mark-paid`), as the model makes it.
  for (const action of Object.keys(address.actions ?? {})) operations[action] = { verb: 'POST', path: `${item}/${kebabCase(action)}` };
  if (address.softDelete) operations.restore = { verb: 'POST', path: `${item}/restore` };
  return operations;
}

/** A history page as its query string: `skip` and `take`, those given. */
function pageQuery(page: { skip?: number; take?: number } = {}): URLSearchParams {
  return new URLSearchParams(Object.entries(page).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)]));
}

/** A proxy instance: the methods (on its class's prototype) call through its client. */
interface Instance {
  readonly client: RestClient;
}
type Method = (this: Instance, ...args: never[]) => Promise<Output<unknown>>;

/** DELETE has no body: the revision the caller believes the record has, when given, is the query parameter `revisionNumber`. */
function revisionQuery(revisionNumber: number | undefined): { query?: URLSearchParams } {
  return revisionNumber === undefined ? {} : { query: new URLSearchParams({ revisionNumber: String(revisionNumber) }) };
}

/** The methods of a resource's proxy class, each calling the instance's client as the address says. */
function methodsOf(address: Address, operations: Record<string, OperationRoute>): Record<string, Method> {
  const dates = Object.keys(address.dates);
  const id = (value: number) => ({ [`_${address.key}`]: value });
  const call = (self: Instance, method: string, input: Parameters<RestClient['call']>[1]) => self.client.call(operations[method], { ...input, dates });
  const methods: Record<string, Method> = {
    read(key: number) { return call(this, 'read', { params: id(key) }); },
    readList(criteria: object) { return call(this, 'readList', { query: criteriaToQuery(criteria) }); },
    create(data: unknown) { return call(this, 'create', { body: data }); },
    update(key: number, data: unknown) { return call(this, 'update', { params: id(key), body: data }); },
    patch(key: number, data: unknown) { return call(this, 'patch', { params: id(key), body: data }); },
    delete(key: number, revisionNumber?: number) { return call(this, 'delete', { params: id(key), ...revisionQuery(revisionNumber) }); },
    /** The record's history, newest first; `at` is a Date. */
    history(key: number, page?: { skip?: number; take?: number }) {
      return this.client.call(operations.history, { params: id(key), query: pageQuery(page), dates: ['at'] });
    },
  };
  for (const [property, child] of Object.entries(address.children ?? {})) {
    const itemName = upperFirst(camelCase(child.item));
    const both = (key: number, childKey: number) => ({ ...id(key), [`_${child.key}`]: childKey });
    const list = `read${upperFirst(property)}`;
    methods[list] = function (key: number) { return call(this, list, { params: id(key) }); };
    methods[`read${itemName}`] = function (key: number, childKey: number) { return call(this, `read${itemName}`, { params: both(key, childKey) }); };
    methods[`create${itemName}`] = function (key: number, data: unknown) { return call(this, `create${itemName}`, { params: id(key), body: data }); };
    methods[`update${itemName}`] = function (key: number, childKey: number, data: unknown) {
      return call(this, `update${itemName}`, { params: both(key, childKey), body: data });
    };
    methods[`patch${itemName}`] = function (key: number, childKey: number, data: unknown) {
      return call(this, `patch${itemName}`, { params: both(key, childKey), body: data });
    };
    methods[`delete${itemName}`] = function (key: number, childKey: number, revisionNumber?: number) {
      return call(this, `delete${itemName}`, { params: both(key, childKey), ...revisionQuery(revisionNumber) });
    };
  }
  for (const action of Object.keys(address.actions ?? {})) {
    methods[action] = function (key: number, input: unknown) { return call(this, action, { params: id(key), body: input }); };
  }
  if (address.softDelete) {
    methods.restore = function (key: number, input?: { revisionNumber?: number | null }) { return call(this, 'restore', { params: id(key), body: input ?? {} }); };
  }
  const service = `I${pascalCase(address.name)}Service`;
  for (const name of address.notExposed ?? []) methods[name] = () => notExposed(`${service}.${name}`);
  return methods;
}

/**
 * The proxy of a declared resource: its service's interface over HTTP (`new CustomerProxy(client).read(7)`), typed by
 * the declaration (`resourceProxy<typeof customer>`, a type-only import) and addressed by a literal the compiler
 * checks against it. Every answer is the envelope as an Output, dates revived.
 */
export function resourceProxy<R, const N extends string = never>(address: ProxyAddress<ShapeOf<R>, N>):
  ProxyClass<ResourceService<ShapeOf<R>> & { [M in N]: (...args: unknown[]) => Promise<never> }> {
  const runtime = address as unknown as Address;
  const operations = operationsOf(runtime);
  const description: ProxyDescription = { service: `I${pascalCase(runtime.name)}Service`, operations, notExposed: runtime.notExposed ?? [] };
  // A class, so `new XProxy(client)` reads as every proxy did, and its statics are what the drift check reads.
  const Proxy = class implements Instance {
    static readonly service = description.service;
    static readonly operations = description.operations;
    static readonly notExposed = description.notExposed;
    constructor(readonly client: RestClient) {}
  };
  // On the prototype, as a hand-written proxy class has them (the drift check lists a proxy's methods from there).
  Object.assign(Proxy.prototype, methodsOf(runtime, operations));
  return Proxy as unknown as ProxyClass<ResourceService<ShapeOf<R>> & { [M in N]: (...args: unknown[]) => Promise<never> }>;
}
