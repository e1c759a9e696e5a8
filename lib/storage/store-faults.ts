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
