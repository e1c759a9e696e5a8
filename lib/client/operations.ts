import type { Verb } from '../http-verbs.js';
import { OperationNotSupportedError } from './errors.js';

/** Where a service operation is served: verb, path below the API prefix with `{param}`s, and whether it is anonymous. */
export interface OperationRoute {
  readonly verb: Verb;
  readonly path: string;
  readonly anonymous?: true;
}

/**
 * A proxy's routes: one entry per method of the service interface `I`, except those listed in `NotExposed`.
 * Adding a method to the interface without deciding whether (and where) it is exposed fails to compile.
 */
export type OperationTable<I, NotExposed extends keyof I = never> = { readonly [K in Exclude<keyof I, NotExposed>]: OperationRoute };

/** What the no-drift test needs to know of a proxy class (see test/client/drift.test.ts). */
export interface ProxyDescription {
  /** The interface name routes use in `operation`, e.g. `ISalesOrderService`. */
  readonly service: string;
  readonly operations: Readonly<Record<string, OperationRoute>>;
  /** Interface methods the server deliberately does not expose. */
  readonly notExposed: readonly string[];
}

/** The rejection of an operation that is not exposed via REST. */
export function notExposed(operation: `${string}.${string}`): Promise<never> {
  return Promise.reject(new OperationNotSupportedError(operation));
}
