import { AsyncLocalStorage } from 'node:async_hooks';
import { ErrorList } from './error-list.js';

const scope = new AsyncLocalStorage<ErrorList>();

/** Runs `fn` with a fresh error list that service code reaches through `currentErrors()`. */
export function withErrorScope<T>(fn: (errors: ErrorList) => Promise<T>): Promise<T> {
  const errors = new ErrorList();
  return scope.run(errors, () => fn(errors));
}

/** The error list of the request being served; outside a request (CLI, jobs) a throwaway list. */
export function currentErrors(): ErrorList {
  return scope.getStore() ?? new ErrorList();
}
