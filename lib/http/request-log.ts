import type { AppContext } from './context.js';

/**
 * One JSON line per request: method, path (never the query string, which may carry personal data), status,
 * duration, request id and user. Bodies, headers, cookies and tokens are never logged.
 */
export function logRequest(ctx: AppContext, startedNs: bigint): void {
  const fields = {
    method: ctx.method,
    path: ctx.path,
    status: ctx.status,
    durationMs: Number((process.hrtime.bigint() - startedNs) / 1000n) / 1000,
    requestId: ctx.state.requestId,
    user: ctx.state.principal?.userName,
  };
  if (ctx.status >= 500) ctx.log.warn('request', fields);
  else ctx.log.info('request', fields);
}
