import type { AppContext } from './context.js';

/**
 * How much of a body nobody will use the server still reads (and drops) before an answer that closes the
 * connection: 16 MiB, or RestAPI:MaxBodyBytes when that is larger, for at most 10 seconds.
 */
export const DRAIN_MIN_BYTES = 16 * 1024 * 1024;
export const DRAIN_MS = 10_000;

/** Whether the connection ends with this answer: the client asked (`Connection: close`, HTTP/1.0) or the server did. */
function closesConnection(ctx: AppContext): boolean {
  return !ctx.res.shouldKeepAlive || /\bclose\b/i.test(ctx.response.get('Connection'));
}

/**
 * An answer given before the request body was read (413 on its Content-Length, 401, 415, a body given up part-way)
 * on a connection that then closes would often never arrive: closing a socket with unread input makes the kernel
 * send a reset, and a client still sending its body, or one that reads only once it has sent everything (most
 * do), gets EPIPE or ECONNRESET instead of the answer. So the rest of the body is read and dropped first, within
 * the bounds above; a body that cannot be read within them is left to that fate. On a connection that stays open,
 * node itself reads the rest after the answer, so nothing waits. Undefined when there is nothing to wait for.
 */
export function readUnreadBody(ctx: AppContext): Promise<void> | undefined {
  const req = ctx.req;
  if (req.complete || req.destroyed || !closesConnection(ctx)) return undefined;
  const limit = Math.max(DRAIN_MIN_BYTES, ctx.server.config.RestAPI.MaxBodyBytes);
  // Whatever else happens, the rest flows (and is dropped) instead of stalling the socket until it closes.
  req.unpipe();
  if (Number(req.headers['content-length']) > limit) {
    req.resume();
    return undefined;
  }
  return new Promise<void>((resolve) => {
    let seen = 0;
    const done = () => {
      clearTimeout(timer);
      req.off('data', count).off('end', done).off('close', done).off('error', done);
      resolve();
    };
    const count = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > limit) done();
    };
    const timer = setTimeout(done, DRAIN_MS);
    req.on('data', count).once('end', done).once('close', done).once('error', done);
    req.resume();
  });
}
