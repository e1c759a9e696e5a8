import { createHash } from 'node:crypto';

/**
 * The strong ETag of one representation: a digest of its bytes (162 bits of SHA-256), quoted. Every ETag the layer
 * sends is made here (lookup tables, the OpenAPI document, the docs page, the browser app's index.html); `variant`
 * tells apart the encodings of one content (a strong ETag names one representation).
 */
export function strongETag(content: string | Buffer, variant?: string): string {
  const tag = createHash('sha256').update(content).digest('base64url').slice(0, 27);
  return `"${tag}${variant ? `-${variant}` : ''}"`;
}

/** The tags that reads attached to the records they answer (attachETag). */
const attached = new WeakMap<object, string>();

/**
 * Gives a record the ETag it answers under, made by its read from what it shows (lib/resources/runtime/version-tag.ts)
 * rather than from its bytes: the GET's answer, If-Match's comparison and a write's new tag all take it (attachedETag).
 */
export function attachETag<T extends object>(record: T, etag: string): T {
  attached.set(record, etag);
  return record;
}

/** The tag attachETag gave `result`, if it gave one. */
export function attachedETag(result: unknown): string | undefined {
  return typeof result === 'object' && result !== null ? attached.get(result) : undefined;
}

/**
 * Conditional GET, decided one way everywhere: If-None-Match evaluated as RFC 9110 13.1.2 says (weak comparison).
 * Koa's `ctx.fresh` is not used: it treats a request with `Cache-Control: no-cache` as stale, and fetch() adds
 * exactly that to every request that sets If-None-Match itself, so such clients would never get their 304.
 */
export function notModified(ifNoneMatch: string, etag: string): boolean {
  if (!ifNoneMatch || !etag) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => opaque(tag) === opaque(etag));
}
