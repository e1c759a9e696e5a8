import { storageFaultCode } from '../storage/sqlite-faults.js';
import { StoreOutcomeUnknownError, StoreUnavailableError } from '../storage/store-faults.js';
import type { ErrorMessage } from '../envelope/error-message.js';
import { MESSAGES } from '../envelope/message-catalogue.js';

/** How long a client should wait before retrying a request that met an infrastructure fault. */
export const RETRY_AFTER_SECONDS = 1;

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

/** The answer to an infrastructure fault: 503 with Retry-After; a distinct code when a write may have been saved. */
export function faultAnswer(kind: FaultKind): { messages: ErrorMessage[]; headers: Record<string, string> } {
  const headers = { 'Retry-After': String(RETRY_AFTER_SECONDS) };
  if (kind === 'outcome-unknown') {
    return { messages: [MESSAGES.Storage_OutcomeUnknown()], headers };
  }
  return { messages: [MESSAGES.Storage_Unavailable()], headers };
}
