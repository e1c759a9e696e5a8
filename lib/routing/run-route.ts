import type { Next } from 'koa';
import { type ErrorMessage, isError } from '../envelope/error-message.js';
import { Output } from '../envelope/output.js';
import { setAccess, setPrecondition, withErrorScope } from '../envelope/request-scope.js';
import { checkIfMatch, writtenETag } from './conditional.js';
import { answerCsv, prefersCsv } from './csv-export.js';
import { derivedStatus } from '../envelope/error-list.js';
import { RawJson, envelope, serializeEnvelope } from '../envelope/envelope.js';
import { chooseLanguage } from '../http/answer-language.js';
import type { AppContext } from '../http/context.js';
import { messagesOf } from '../http/error-boundary.js';
import { attachedETag, notModified, strongETag } from '../etag.js';
import { respond } from '../http/respond.js';
import { type ValidationResult, validateInput } from '../validation/validate.js';
import { CODES, MESSAGES, inputMessage } from '../envelope/message-catalogue.js';
import type { Route } from './route.js';
import { cookieSession, endCookieSession } from '../http/auth/cookie-sessions.js';
import { BoundedMap } from '../bounded-map.js';

function unexpectedQuery(search: URLSearchParams): ErrorMessage[] {
  return [...new Set(search.keys())].map((key) =>
    inputMessage(CODES.Input_UnknownProperty, key, { of: 'parameter of this operation', property: key }));
}

/** What the race against the request timeout answers when the timeout comes first. */
const timedOut = Symbol('timed out');

/**
 * What a request answers when its operation outlives RequestTimeoutSeconds. The operation runs on: a read is safe to
 * repeat, but a write may still be saved, so it must not claim to have failed (Request_OutcomeUnknown): repeated with
 * the same Idempotency-Key it answers the real outcome once there is one.
 */
function timeoutMessage(method: string, ms: number): ErrorMessage {
  const seconds = ms / 1000;
  if (method === 'GET' || method === 'HEAD') {
    return MESSAGES.Request_Timeout({ seconds });
  }
  return MESSAGES.Request_OutcomeUnknown({ seconds });
}

/**
 * Aborted when the client hangs up before its answer is sent: reads made only for that answer are stopped then
 * (a SQLite reader process is freed for other requests rather than running on to its time limit). Made when a read
 * first asks for it (currentSignal), once per request.
 */
function hangUpSignal(ctx: AppContext): () => AbortSignal {
  let signal: AbortSignal | undefined;
  return () => {
    if (signal) return signal;
    const controller = new AbortController();
    signal = controller.signal;
    const abort = () => {
      if (!ctx.res.writableFinished) controller.abort();
    };
    // Asked for once the client has already gone: aborted at once.
    if (ctx.res.closed) abort();
    else ctx.res.once('close', abort);
    return signal;
  };
}

/**
 * Path parameters already validated, by their raw values: the same paths (a lookup table, a popular order) come
 * again and again, and a superstruct check costs microseconds. Values are frozen because requests share them.
 */
function paramsValidator(struct: Route['params']) {
  if (!struct) return () => ({ ok: true as const, value: {} });
  const valid = new BoundedMap<string, unknown>(1_000);
  return (raw: Record<string, string>): ValidationResult<unknown> => {
    const key = JSON.stringify(raw);
    const known = valid.get(key);
    if (known) return { ok: true, value: known };
    const result = validateInput(struct, { ...raw });
    if (result.ok) valid.set(key, Object.freeze(result.value));
    return result;
  };
}

/**
 * The envelope middleware every route runs inside: validate params, query and body (every problem, each with its
 * property), call the operation inside a fresh error scope, and send its Output with the derived status.
 */
export function runRoute(route: Route, prefix: string, timeoutMs: number) {
  const validParams = paramsValidator(route.params);
  const { permission } = route;
  return (ctx: AppContext, _next: Next) =>
    withErrorScope(async (errors) => {
      // What the caller may do, for the services (record scopes, references, audit): the gate resolved the caller's
      // grants. Also on a route that names no permission (`authenticated: true`): a reference its operation resolves
      // still reaches only what the caller may read.
      const { principal, grants } = ctx.state;
      if (principal && grants) {
        setAccess({
          userName: principal.userName,
          attributes: principal.attributes,
          // Tenancy on: the caller's tenant, or null for none (a tenant-owned record is out of its reach).
          ...(ctx.server.config.Tenancy.Enabled ? { tenant: principal.tenantId ?? null } : {}),
          permission,
          scopes: permission === undefined ? undefined : grants.scopesOf(permission),
          holds: grants.holds,
          scopesOf: grants.scopesOf,
        });
      }
      const problems: ErrorMessage[] = [];
      const check = <T>(result: { ok: true; value: T } | { ok: false; messages: ErrorMessage[] }): T | undefined => {
        if (result.ok) return result.value;
        problems.push(...result.messages);
        return undefined;
      };
      const params = check(validParams((ctx as AppContext & { params: Record<string, string> }).params));
      const query = route.query ? check(route.query.parse(new URLSearchParams(ctx.querystring)))
        : (ctx.querystring && problems.push(...unexpectedQuery(new URLSearchParams(ctx.querystring))), {});
      const body = route.body ? check(validateInput(route.body, ctx.request.body)) : undefined;
      if (problems.length) return respond(ctx, errors.addAll(problems).messages);

      let location: string | undefined;
      // Never rejects: whatever the operation ends with becomes its answer, also after a timeout answered the caller.
      // (Async, so a route file in plain JavaScript may answer a value, or throw, rather than return a promise.)
      const call: Parameters<Route['handle']>[0] = {
        params, query, body,
        services: ctx.services,
        server: ctx.server,
        principal: ctx.state.principal,
        created(path) {
          location = prefix + path;
        },
        header: (name, value) => ctx.set(name, value),
        // A plain value, not a getter: an object literal with an accessor kept every request's context alive
        // past the young generation (scavenges went from 0.5 to 5 ms); node caches the peer address per socket.
        clientAddress: ctx.ip,
        log: ctx.log,
        requestId: ctx.state.requestId,
        async signIn({ stamp, ...user }) {
          const session = cookieSession(ctx);
          session.user = user;
          session.stamp = stamp;
          session.loginAt = Date.now();
          // A fresh key at login: a session id planted before login (fixation) is worth nothing.
          await session.regenerate();
        },
        async signOut() {
          endCookieSession(ctx);
        },
      };
      if (route.csv && ctx.method === 'GET' && prefersCsv(ctx)) {
        const { MaxRows, MaxExportRows } = ctx.server.config.RestAPI;
        return answerCsv(ctx, route, call, { pageRows: Math.min(MaxRows, ctx.server.exportPageRows), maxRows: MaxExportRows });
      }
      const readRecord = typeof route.etag === 'function' ? route.etag.bind(route, call) : undefined;
      const ifMatch = readRecord && ctx.get('If-Match');
      if (ifMatch) {
        const outcome = await checkIfMatch(ifMatch, readRecord!);
        if (!outcome.proceed) return respond(ctx, errors.addAll(outcome.messages).messages);
        setPrecondition(outcome.precondition);
      }
      const finished = (async () => {
        const output = await route.handle(call);
        // The record's new ETag, on every successful write of it but a delete (contract part 14).
        if (readRecord && ctx.method !== 'DELETE' && output && !errors.hasErrors && !output.messages.some(isError)) {
          // A declared resource's write answers its tag itself (lib/resources/runtime/version-tag.ts); else read again.
          const etag = attachedETag(output.result) ?? await writtenETag((output.result as { revisionNumber?: unknown } | undefined)?.revisionNumber, readRecord);
          if (etag) ctx.set('ETag', etag);
        } else if (route.etag === 'result' && output?.result != null && !output.messages.some(isError)) {
          // Serialised once, for the tag and the answer alike.
          const raw = output.result instanceof RawJson ? output.result : RawJson.of(output.result);
          ctx.set('ETag', attachedETag(output.result) ?? strongETag(raw.json));
          // The caller's own cache (a browser's) may keep the record and revalidate it with If-None-Match each time;
          // a shared cache may not keep it at all (it answers one caller's credentials and scope).
          ctx.set('Cache-Control', 'private, no-cache');
          return new Output<unknown>(raw, output.messages, output.totalCount, output.nextCursor);
        }
        return output;
      })().then(
        (output: Output<unknown> | undefined) => ({ output, messages: errors.addAll(output?.messages ?? []).messages }),
        (err: unknown) => ({ output: undefined, messages: errors.addAll(messagesOf(ctx, err)).messages }),
      );
      let timer: NodeJS.Timeout | undefined;
      const first = await Promise.race([finished, new Promise<typeof timedOut>((resolve) => {
        timer = setTimeout(() => resolve(timedOut), timeoutMs);
      })]);
      clearTimeout(timer);
      // The Idempotency-Key layer keeps the answer the operation really ends with, not a timeout's.
      if (ctx.state.settleAnswer) {
        ctx.state.settleAnswer(finished.then(({ output, messages }) => {
          const status = derivedStatus(messages, location ? 201 : 200);
          // Kept in the language of the first request: a replay answers the same body (and says its language).
          const language = messages.length ? chooseLanguage(ctx) : undefined;
          const text = serializeEnvelope(envelope(messages, output?.result, output?.totalCount, output?.nextCursor, language));
          return { status, body: String(text), codes: messages.map((m) => m.code), ...(language ? { language } : {}), ...(status === 201 ? { location: location! } : {}) };
        }));
      }
      if (first === timedOut) {
        ctx.set('Retry-After', '1');
        return respond(ctx, [...errors.messages, timeoutMessage(ctx.method, timeoutMs)]);
      }
      const { output, messages } = first;
      respond(ctx, messages, output?.result, output?.totalCount, location ? 201 : 200, output?.nextCursor);
      if (ctx.status === 201) ctx.set('Location', location!);
      else if (ctx.status === 200 && (ctx.method === 'GET' || ctx.method === 'HEAD') && notModified(ctx.get('If-None-Match'), ctx.response.get('ETag'))) {
        ctx.status = 304;
        ctx.body = null;
      }
    }, hangUpSignal(ctx));
}
