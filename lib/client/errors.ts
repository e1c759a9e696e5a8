import type { ErrorMessage } from '../envelope/error-message.js';
import type { Output } from '../envelope/output.js';

export const SESSION_EXPIRED_CODE = 'Login_SessionExpired';
export const SESSION_EXPIRED_TEXT = 'Your session has expired. Please log in again.';

/**
 * The session is over and the client cannot renew it: the refresh failed (variant A), the token expired (variant B),
 * or a secured call was refused with 401 (cookie mode, or no login at all). The application catches it
 * (`err instanceof SessionExpiredError` or `err.code === 'Login_SessionExpired'`) and shows its login.
 * The same error is dispatched once per session end as a `sessionexpired` event (see `SessionExpiredEvent`).
 */
export class SessionExpiredError extends Error {
  readonly code = SESSION_EXPIRED_CODE;
  /** The envelope form, for applications that show messages uniformly. */
  readonly messages: ErrorMessage[] = [{ code: SESSION_EXPIRED_CODE, message: SESSION_EXPIRED_TEXT, severity: 'Error', type: 'Security' }];

  constructor(
    /** What the server answered when the session could not be renewed (e.g. `Security_InvalidRefreshToken`). */
    readonly serverMessages: ErrorMessage[] = [],
  ) {
    super(SESSION_EXPIRED_TEXT);
    this.name = 'SessionExpiredError';
  }
}

/** The event the client's session dispatches when it ends: `session.addEventListener('sessionexpired', ...)`. */
export class SessionExpiredEvent extends Event {
  static readonly type = 'sessionexpired';
  constructor(readonly error: SessionExpiredError) {
    super(SessionExpiredEvent.type);
  }
}

/** Thrown by a proxy for an operation of its interface that the server does not expose via REST. */
export class OperationNotSupportedError extends Error {
  readonly code = 'Operation_NotSupported';
  constructor(readonly operation: `${string}.${string}`) {
    super(`Operation ${operation} is not exposed via REST.`);
    this.name = 'OperationNotSupportedError';
  }
}

/**
 * An Output built on the client. It has the fields of lib/envelope/output.ts's Output (so it is one, to the type
 * system) but is a plain object: that class's module reaches AsyncLocalStorage, which a browser bundle cannot hold.
 */
export function clientOutput<T>(result: T | undefined, messages: ErrorMessage[], totalCount?: number, nextCursor?: string): Output<T> {
  const output: { result: T | undefined; messages: ErrorMessage[]; totalCount?: number; nextCursor?: string } = { result, messages };
  if (totalCount !== undefined) output.totalCount = totalCount;
  if (nextCursor !== undefined) output.nextCursor = nextCursor;
  return output as Output<T>;
}

/** A client-side failure in the envelope's form: type External, as the contract types a failing outside system. */
export function externalMessage(code: string, text: string): ErrorMessage {
  return { code, message: text, severity: 'Error', type: 'External' };
}

/**
 * Whether an answer says the record was changed by someone else: a 412 (the If-Match the client sent with the tag it
 * held is stale) or a 409 on a stale revisionNumber, both Entity_Concurrency of type Concurrency. Nothing was
 * written; read the record again and retry on what it is now.
 */
export function isConcurrencyConflict(output: Pick<Output<unknown>, 'messages'>): boolean {
  return output.messages.some((m) => m.code === 'Entity_Concurrency');
}
