import type { Middleware } from 'koa';
import type { Metrics } from './metrics.js';

/** What @koa/router leaves on the context when a route matched: its path, prefix included. */
interface RoutedContext {
  _matchedRoute?: string | RegExp;
}

/** Methods outside HTTP's own are counted as `_OTHER` (OpenTelemetry's rule), so a client cannot invent labels. */
const knownMethods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT', 'TRACE']);

/** The label of requests no API route matched: unknown paths, 405s, the browser app's files. */
export const UNMATCHED = 'unmatched';

/**
 * The route label is the template as the OpenAPI document writes it, below the prefix (`/sales-order/{_salesOrderId}`),
 * never the raw path: one series per route, however many ids are asked for.
 */
function routeTemplate(prefix: string): (matched: string | RegExp | undefined) => string {
  const templates = new Map<string, string>();
  return (matched) => {
    if (typeof matched !== 'string') return UNMATCHED;
    let template = templates.get(matched);
    if (template === undefined) {
      const path = prefix && matched.startsWith(prefix) ? matched.slice(prefix.length) : matched;
      template = path.replace(/:([\w$]+)/g, '{$1}') || '/';
      templates.set(matched, template);
    }
    return template;
  };
}

/** Outermost middleware: times every request and records it in `http_server_request_duration_seconds`. */
export function requestDuration(metrics: Metrics, prefix: string): Middleware {
  const templateOf = routeTemplate(prefix);
  return async (ctx, next) => {
    const start = performance.now();
    try {
      await next();
    } finally {
      metrics.requestDuration.observe({
        http_request_method: knownMethods.has(ctx.method) ? ctx.method : '_OTHER',
        http_route: templateOf((ctx as RoutedContext)._matchedRoute),
        http_response_status_code: ctx.status,
      }, (performance.now() - start) / 1000);
    }
  };
}
