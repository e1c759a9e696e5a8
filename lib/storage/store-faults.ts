/**
 * Errors the stores' adapters throw for infrastructure faults, so the layer answers them by their class (503 with
 * Retry-After) whatever text the driver used. They carry the driver's error as `cause` for the log.
 */

/** A store could not be reached, stopped answering within its bound, or lost the connection: retry shortly. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  /** Which store: named in the log line, never to clients. */
  readonly store: string;
  constructor(store: string, detail: string, options?: { cause?: unknown }) {
    super(`${store}: ${detail}`, options);
    this.store = store;
  }
}

/**
 * A fault hit a COMMIT: the server may have saved the transaction before the connection failed, so the client
 * must look before it retries a write that is not idempotent.
 */
export class StoreOutcomeUnknownError extends Error {
  override readonly name = 'StoreOutcomeUnknownError';
  readonly store: string;
  constructor(store: string, detail: string, options?: { cause?: unknown }) {
    super(`${store}: ${detail}`, options);
    this.store = store;
  }
}
