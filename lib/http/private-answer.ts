import type { Next } from 'koa';
import type { AppContext } from './context.js';

/**
 * For answers that say who the caller is: no cache, shared or private, may keep one and hand it to the next caller
 * (an anonymous route would otherwise look cacheable to a proxy that ignores the credentials sent).
 */
export async function privateAnswer(ctx: AppContext, next: Next): Promise<void> {
  ctx.set('Cache-Control', 'no-store');
  ctx.vary('Cookie');
  ctx.vary('Authorization');
  await next();
}
