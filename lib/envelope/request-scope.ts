import { AsyncLocalStorage } from 'node:async_hooks';
import { ErrorList } from './error-list.js';

/**
 * What the caller may do, as service code sees it (set by the route runner once the gate let the caller in). Plain
 * data, so services and the storage layer read it without knowing Koa or how tokens and roles work.
 */
export interface RequestAccess {
  /** The caller's user name: the "who" of audit entries. Undefined for an anonymous caller. */
  userName?: string;
  /** The caller's user attributes (`restlayer user set-attribute`), which record scopes read. */
  attributes: Readonly<Record<string, string>>;
  /**
   * The caller's tenant (contract part 12): undefined when `Tenancy:Enabled` is off (no tenant filter), null when it
   * is on and the caller has none (a tenant-owned record is out of reach), else the tenant whose records the caller reaches.
   */
  tenant?: string | null;
  /** The permission the route needs, when it names one. */
  permission?: string;
  /**
   * The record scopes that limit that permission for this caller (lib/storage/record-scope.ts): undefined when the
   * caller holds it without a limit (or the route names no permission); otherwise the names of every scope a role of
   * the caller grants it with — a record in any of them is in reach.
   */
  scopes?: readonly string[];
  /** Whether the caller holds `permission` (with or without a scope), for operations that do more for some callers. */
  holds(permission: string): boolean;
  /** The scopes limiting `permission` for this caller: undefined when not limited (or not held: check `holds`). */
  scopesOf(permission: string): readonly string[] | undefined;
}

/** What service code reaches of the request being served. */
interface RequestScope {
  errors: ErrorList;
  /**
   * Aborted once the request's client has gone: work done only for its answer may stop (lib/storage's readers). Made
   * when first asked for: most requests never ask, and an AbortController with its close listener costs a lookup
   * route ~4 % of its time.
   */
  signal?: () => AbortSignal;
  access?: RequestAccess;
  /** What If-Match asks of the record the request writes (contract part 14), once the route runner has checked it. */
  precondition?: Precondition;
  /** Inside withDeletedView: statements of soft-deletable records reach the deleted ones instead of the others. */
  deletedView?: boolean;
}

/**
 * The revision a conditional write (If-Match) may change: the one of the representation whose ETag the caller named.
 * The write checks it where it checks `revisionNumber`, atomically with the change (lib/envelope/precondition.ts).
 */
export interface Precondition {
  readonly revisionNumber: number;
}

const scope = new AsyncLocalStorage<RequestScope>();

/**
 * Runs `fn` with a fresh error list that service code reaches through `currentErrors()`, and `signal` (or the signal it
 * makes when first asked for; by default the enclosing scope's) through `currentSignal()`. The caller's access is the
 * enclosing scope's until `setAccess`.
 */
export function withErrorScope<T>(fn: (errors: ErrorList) => Promise<T>, signal?: AbortSignal | (() => AbortSignal)): Promise<T> {
  const errors = new ErrorList();
  const outer = scope.getStore();
  const made = signal instanceof AbortSignal ? () => signal : signal;
  return scope.run({ errors, signal: made ?? outer?.signal, access: outer?.access, precondition: outer?.precondition }, () => fn(errors));
}

/** The error list of the request being served; outside a request (CLI, jobs) a throwaway list. */
export function currentErrors(): ErrorList {
  return scope.getStore()?.errors ?? new ErrorList();
}

/** The signal of the request being served (aborted when its client hangs up); undefined outside a request. */
export function currentSignal(): AbortSignal | undefined {
  return scope.getStore()?.signal?.();
}

/**
 * The access of the request being served; undefined outside a request (CLI, jobs, seeding: the operator is not
 * limited by a scope) and on routes that name no permission.
 */
export function currentAccess(): RequestAccess | undefined {
  return scope.getStore()?.access;
}

/** Sets the access of the current request scope (the route runner, once it knows the caller and the route). */
export function setAccess(access: RequestAccess): void {
  const store = scope.getStore();
  if (!store) throw new Error('setAccess outside a request scope');
  store.access = access;
}

/** The precondition of the request being served: undefined without If-Match (and outside a request). */
export function currentPrecondition(): Precondition | undefined {
  return scope.getStore()?.precondition;
}

/** Sets the precondition of the current request scope (the route runner, once If-Match named a current ETag). */
export function setPrecondition(precondition: Precondition | undefined): void {
  const store = scope.getStore();
  if (!store) throw new Error('setPrecondition outside a request scope');
  store.precondition = precondition;
}

/**
 * Runs `fn` seeing deleted records instead of the others (lib/storage/record-scope.ts, `softDeleteCondition`): the
 * one explicit, local switch of the soft-delete filter (a list with `deleted=true`, a restore). The caller's access
 * inside is narrowed to `permission` (`customer.delete`): its scopes, not the route's, decide which deleted records
 * are reached. Messages go to the enclosing request's list.
 */
export function withDeletedView<T>(permission: string, fn: () => Promise<T>): Promise<T> {
  const outer = scope.getStore();
  if (!outer) throw new Error('withDeletedView outside a request scope');
  const access = outer.access && { ...outer.access, permission, scopes: outer.access.scopesOf(permission) };
  return scope.run({ ...outer, access, deletedView: true }, fn);
}

/** Whether the current statement is built inside withDeletedView. */
export function viewingDeleted(): boolean {
  return scope.getStore()?.deletedView === true;
}
