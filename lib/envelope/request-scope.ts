import { AsyncLocalStorage } from 'node:async_hooks';
import { ErrorList } from './error-list.js';

/** What service code reaches of the request being served. */
interface RequestScope {
  errors: ErrorList;
  /** Aborted once the request's client has gone: work done only for its answer may stop (lib/storage's readers). */
  signal?: AbortSignal;
}

const scope = new AsyncLocalStorage<RequestScope>();

/**
 * Runs `fn` with a fresh error list that service code reaches through `currentErrors()`, and `signal` (by default the
 * enclosing scope's) through `currentSignal()`.
 */
export function withErrorScope<T>(fn: (errors: ErrorList) => Promise<T>, signal?: AbortSignal): Promise<T> {
  const errors = new ErrorList();
  return scope.run({ errors, signal: signal ?? scope.getStore()?.signal }, () => fn(errors));
}

/** The error list of the request being served; outside a request (CLI, jobs) a throwaway list. */
export function currentErrors(): ErrorList {
  return scope.getStore()?.errors ?? new ErrorList();
}

/** The signal of the request being served (aborted when its client hangs up); undefined outside a request. */
export function currentSignal(): AbortSignal | undefined {
  return scope.getStore()?.signal;
}
