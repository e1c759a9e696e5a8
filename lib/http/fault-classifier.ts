import type { FaultKind } from '../storage/store-faults.js';
import type { ErrorMessage } from '../envelope/error-message.js';
import { MESSAGES } from '../envelope/message-catalogue.js';

export { type FaultKind, infrastructureFault } from '../storage/store-faults.js';

/** How long a client should wait before retrying a request that met an infrastructure fault. */
export const RETRY_AFTER_SECONDS = 1;

/** The answer to an infrastructure fault: 503 with Retry-After; a distinct code when a write may have been saved. */
export function faultAnswer(kind: FaultKind): { messages: ErrorMessage[]; headers: Record<string, string> } {
  const headers = { 'Retry-After': String(RETRY_AFTER_SECONDS) };
  if (kind === 'outcome-unknown') {
    return { messages: [MESSAGES.Storage_OutcomeUnknown()], headers };
  }
  return { messages: [MESSAGES.Storage_Unavailable()], headers };
}
