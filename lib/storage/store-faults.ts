import { storageFaultCode } from './sqlite-faults.js';

/**
 * Errors the stores' adapters throw for infrastructure faults, so the layer answers them by their class (503 with
 * Retry-After) whatever text the driver used. They carry the driver's error as `cause` for the log.
 */

/** An infrastructure fault of one store: which store is named in the log line, never to clients. */
abstract class StoreFaultError extends Error {
  readonly store: string;
  constructor(store: string, detail: string, options?: { cause?: unknown }) {
    super(`${store}: ${detail}`, options);
    this.store = store;
  }
}

/** A store could not be reached, stopped answering within its bound, or lost the connection: retry shortly. */
export class StoreUnavailableError extends StoreFaultError {
  override readonly name = 'StoreUnavailableError';
}

/**
 * A fault hit a COMMIT: the server may have saved the transaction before the connection failed, so the client
 * must look before it retries a write that is not idempotent.
 */
export class StoreOutcomeUnknownError extends StoreFaultError {
  override readonly name = 'StoreOutcomeUnknownError';
}

/**
 * Socket codes of a store refused, cut or not found, and PostgreSQL's connection exceptions (class 08) and shutdowns
 * (57P01-57P03), for errors that reach the layer without the stores' own classes.
 */
const unavailableCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH',
  '08000', '08001', '08003', '08004', '08006', '57P01', '57P02', '57P03']);
/**
 * SQLite's contention (with its extended forms: better-sqlite3 reports SQLITE_BUSY_SNAPSHOT, SQLITE_LOCKED_SHAREDCACHE,
 * ...); its disk and file faults are `storageFaultCode`'s. None is the request's fault: the operator's to fix or wait out.
 */
const sqliteContention = /^SQLITE_(BUSY|LOCKED)(_|$)/;

export type FaultKind = 'unavailable' | 'outcome-unknown';

/** Whether `err` is an infrastructure fault, and which: by the error's class or code, never its text. */
export function infrastructureFault(err: unknown): FaultKind | undefined {
  if (err instanceof StoreOutcomeUnknownError) return 'outcome-unknown';
  if (err instanceof StoreUnavailableError) return 'unavailable';
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  if (storageFaultCode(err) || (typeof code === 'string' && (unavailableCodes.has(code) || sqliteContention.test(code)))) return 'unavailable';
  return undefined;
}
