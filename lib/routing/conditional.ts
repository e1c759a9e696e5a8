import { RawJson } from '../envelope/envelope.js';
import { type ErrorMessage, isError } from '../envelope/error-message.js';
import { MESSAGES } from '../envelope/message-catalogue.js';
import type { Output } from '../envelope/output.js';
import { type Precondition, withErrorScope } from '../envelope/request-scope.js';
import { attachedETag, strongETag } from '../etag.js';

/**
 * Conditional requests on one record (contract part 14). A record's ETag changes whenever the body its GET answers
 * would: the layer's resources make it from the versions of what the body shows (lib/resources/runtime/version-tag.ts:
 * an order's revision, which its lines' writes move, and its customer's), any other record's is a digest of the
 * result's JSON. A write does not compare tags while it holds the record: the runner reads the record first and
 * compares there; the write then checks the revision that representation had, atomically with its change
 * (precondition.ts). A change between the two moves the revision, so it is refused as well.
 */

/**
 * The ETag of a record's representation (the `result` its GET answers): the one its read attached (made from the
 * versions of what it shows: lib/resources/runtime/version-tag.ts), else a digest of its JSON.
 */
export function recordETag(result: unknown): string {
  return attachedETag(result) ?? strongETag(result instanceof RawJson ? result.json : RawJson.of(result).json);
}

/** Whether If-Match (a list of tags, or `*`) names `etag`: strong comparison (RFC 9110 13.1.1), a weak tag never matches. */
export function matchesIfMatch(ifMatch: string, etag: string): boolean {
  return ifMatch.split(',').some((tag) => tag.trim() === '*' || tag.trim() === etag);
}

/** What If-Match decides before a write: go on (with the revision the write must still find), or answer now. */
export type IfMatchOutcome = { proceed: true; precondition?: Precondition } | { proceed: false; messages: ErrorMessage[] };

/**
 * Checks If-Match against the record `read` answers (through the caller's scope, its messages kept apart from the
 * request's): a record that does not exist goes on to the write, which answers 404 as without the header, except for
 * `If-Match: *`, which is a 412; a tag that is not current is a 412 and nothing is written.
 */
export async function checkIfMatch(ifMatch: string, read: () => Promise<Output<unknown> | undefined>): Promise<IfMatchOutcome> {
  const current = await withErrorScope(async () => read());
  const record = current?.result as { revisionNumber?: unknown } | undefined;
  if (record == null || current!.messages.some(isError)) {
    return ifMatch.split(',').some((tag) => tag.trim() === '*')
      ? { proceed: false, messages: [MESSAGES.Entity_Concurrency({ tag: 'missing', status: 412 })] }
      : { proceed: true };
  }
  if (!matchesIfMatch(ifMatch, recordETag(record))) return { proceed: false, messages: [MESSAGES.Entity_Concurrency({ tag: 'stale', status: 412 })] };
  return { proceed: true, precondition: { revisionNumber: Number(record.revisionNumber) } };
}

/**
 * The ETag of the record a write has just changed, read again: only when it is the revision the write answered (a
 * write that came between would give the caller a tag of a change they have not seen).
 */
export async function writtenETag(revisionNumber: unknown, read: () => Promise<Output<unknown> | undefined>): Promise<string | undefined> {
  const current = await withErrorScope(async () => read());
  const record = current?.result as { revisionNumber?: unknown } | undefined;
  if (record == null || revisionNumber == null || Number(record.revisionNumber) !== Number(revisionNumber)) return undefined;
  return recordETag(record);
}
