/**
 * If-None-Match evaluated as RFC 9110 13.1.2 says (weak comparison). Koa's `ctx.fresh` is not used: it treats a
 * request with `Cache-Control: no-cache` as stale, and fetch() adds exactly that to every request that sets
 * If-None-Match itself, so such clients would never get their 304.
 */
export function notModified(ifNoneMatch: string, etag: string): boolean {
  if (!ifNoneMatch || !etag) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => opaque(tag) === opaque(etag));
}
