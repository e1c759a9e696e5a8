import { MESSAGES } from './message-catalogue.js';
import { currentErrors, currentPrecondition } from './request-scope.js';

/**
 * Whether the record a write is about to change is no longer the one whose ETag the caller sent in If-Match (its
 * revision moved since the route runner compared the tags): then 412 Entity_Concurrency is recorded and nothing may be
 * written. Called where the write reads the record it changes (locked, or followed by an update conditional on that
 * revision), so the check and the write are one: of two writes sent with the same If-Match, only one succeeds.
 */
export function preconditionFails(record: string, current: unknown): boolean {
  const precondition = currentPrecondition();
  if (!precondition || precondition.revisionNumber === Number(current)) return false;
  currentErrors().add(MESSAGES.Entity_Concurrency({ record, tag: 'stale', status: 412 }));
  return true;
}
