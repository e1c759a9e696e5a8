import { ServiceError } from '../envelope/error-list.js';
import type { ErrorMessage } from '../envelope/error-message.js';
import { CODES, MESSAGES, textOf } from '../envelope/message-catalogue.js';
import { RETRY_AFTER_SECONDS, faultAnswer, infrastructureFault } from './fault-classifier.js';
import { type UniqueKey, duplicateProperty, uniqueViolation } from '../storage/unique-violation.js';

export interface ParsedError {
  messages: ErrorMessage[];
  /** True when nothing recognised the error: it is a defect and gets logged with the request id. */
  unhandled: boolean;
  headers?: Record<string, string>;
}

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  type?: string;
  code?: string;
  expose?: boolean;
  headers?: Record<string, string>;
}

export const GENERIC_ERROR_TEXT = textOf(CODES.Exception_Unhandled);

/** zlib's codes for compressed input that is corrupt or cut short; Brotli's are `ERR__ERROR_FORMAT_...` and the like. */
const corruptBodyCodes = new Set(['Z_DATA_ERROR', 'Z_BUF_ERROR', 'Z_NEED_DICT']);
const isCorruptBody = (code: string) => corruptBodyCodes.has(code) || code.startsWith('ERR__ERROR_');

/** Turns anything thrown while serving a request into envelope messages. */
export function createErrorParser(options: { production: boolean; uniqueKeys?: readonly UniqueKey[] }) {
  return function parseError(err: unknown): ParsedError {
    if (err instanceof ServiceError) return { messages: [...err.messages], unhandled: false };
    const e = (typeof err === 'object' && err !== null ? err : {}) as HttpLikeError;
    const status = e.status ?? e.statusCode;
    const fault = infrastructureFault(err);
    if (fault) return { ...faultAnswer(fault), unhandled: false };
    const violation = uniqueViolation(err);
    if (violation) {
      // A write that lost a race with another one for a unique value: the service's own check could not see it.
      const property = duplicateProperty(violation, options.uniqueKeys ?? []);
      return { messages: [MESSAGES.Entity_Duplicate(property ? { property } : {})], unhandled: false };
    }
    if (e.code === 'SQLITE_INTERRUPT' || e.code === '57014') {
      // A read stopped at Storage:QueryTimeoutSeconds (SQLite: its reader process ended; PostgreSQL: statement_timeout).
      // A 503 as the contract answers a store busy past its limit: with Retry-After, as run-route's own timeout.
      return { messages: [MESSAGES.Request_Timeout()], unhandled: false, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } };
    }
    if (typeof e.code === 'string' && isCorruptBody(e.code)) {
      // A compressed body (Content-Encoding gzip or deflate) that does not decompress: the client's fault, not a defect.
      return { messages: [MESSAGES.Request_MalformedJson({ why: 'it could not be decompressed as its Content-Encoding says' })], unhandled: false };
    }
    if (status === 413) {
      return { messages: [MESSAGES.Request_TooLarge()], unhandled: false };
    }
    if (status === 415) {
      return { messages: [MESSAGES.Request_UnsupportedMediaType()], unhandled: false };
    }
    if (status === 400 && (e.type === 'entity.parse.failed' || (err instanceof SyntaxError) || /json/i.test(String((err as Error).message)))) {
      return { messages: [MESSAGES.Request_MalformedJson()], unhandled: false };
    }
    if (typeof status === 'number' && status >= 400 && status < 500 && e.expose !== false) {
      return {
        messages: [MESSAGES.Request_Invalid({ reason: (err as Error).message, status })],
        unhandled: false,
        headers: e.headers,
      };
    }
    const detail = !options.production && err instanceof Error ? ` (${err.name}: ${err.message})` : '';
    return { messages: [MESSAGES.Exception_Unhandled({ detail })], unhandled: true };
  };
}
