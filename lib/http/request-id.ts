import { randomUUID } from 'node:crypto';
import type { AppContext } from './context.js';

const acceptable = /^[\w.:@/+=-]{1,128}$/;

/** Every response carries X-Request-Id: the caller's when it sent a sane one, else a new one. */
export function assignRequestId(ctx: AppContext): void {
  const sent = ctx.get('X-Request-Id');
  ctx.state.requestId = acceptable.test(sent) ? sent : randomUUID();
  ctx.set('X-Request-Id', ctx.state.requestId);
}
