import { createHash } from 'node:crypto';
import type { Middleware, Next } from 'koa';
import { envelope, serializeEnvelope } from '../envelope/envelope.js';
import { ServiceError } from '../envelope/error-list.js';
import type { ErrorMessage } from '../envelope/error-message.js';
import { DEFAULT_LANGUAGE } from '../envelope/languages.js';
import { MESSAGES } from '../envelope/message-catalogue.js';
import type { AppContext, AppExtensions, AppState, FinalAnswer } from '../http/context.js';
import { respond } from '../http/respond.js';
import type { Logger } from '../log.js';
import { canonicalBody } from './canonical-body.js';
import { ClaimsInHand, type Outcome } from './claims-in-hand.js';
import type { IdempotencyKeyStore, KeyState, StoredAnswer } from './key-store.js';
import { processIdentity } from './process-identity.js';

/** 1 to 255 visible ASCII characters (contract part 3, "Retries"). */
const VALID_KEY = /^[\x21-\x7e]{1,255}$/;

/** The largest envelope kept for a repeat; a bigger one is replayed without its result (see `storable`). */
export const MAX_STORED_BODY = 64 * 1024;

/** Pauses between looks at a key whose first request still runs; the last one repeats. */
const POLL_MS = [5, 10, 20, 50, 100, 200, 250];

export interface IdempotencyOptions {
  /** How long a repeat waits for the first request to finish before answering 409 Request_InProgress. */
  waitMs: number;
  /** How often (at most) this process removes expired keys, beside a request rather than on its path. */
  purgeEveryMs: number;
  /** How long a key is kept (RestAPI:IdempotencyKeepSeconds): an outcome still unwritten after that is dropped. */
  keepMs: number;
  log: Logger;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const invalidKey = () => new ServiceError([MESSAGES.Request_IdempotencyKeyInvalid({ property: 'Idempotency-Key' })]);
const mismatch = () => MESSAGES.Request_IdempotencyMismatch({ property: 'Idempotency-Key' });
const inProgress = () => MESSAGES.Request_InProgress();
const outcomeUnknown = () => MESSAGES.Request_IdempotencyOutcomeUnknown({ property: 'Idempotency-Key' });

/** Keeps the envelope for a repeat; one over the size limit keeps its messages and says the result was not kept. */
function storable(answer: FinalAnswer): StoredAnswer {
  const kept: StoredAnswer = {
    status: answer.status, body: answer.body, ...(answer.location ? { location: answer.location } : {}), ...(answer.language ? { language: answer.language } : {}),
  };
  if (Buffer.byteLength(answer.body) <= MAX_STORED_BODY) return kept;
  const { messages } = JSON.parse(answer.body) as { messages: ErrorMessage[] };
  // The note in the language of the messages kept with it (texts already); an answer that had none says it in English.
  const note = MESSAGES.Request_ReplayWithoutResult();
  const language = answer.language ?? DEFAULT_LANGUAGE;
  return { ...kept, language, body: String(serializeEnvelope(envelope([...messages, note], undefined, undefined, undefined, language))) };
}

/** What a repeat answers, from the record the first request left. */
function replay(ctx: AppContext, answer: StoredAnswer): void {
  ctx.status = answer.status;
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = answer.body;
  if (answer.location) ctx.set('Location', answer.location);
  // The body is the first answer's, so its language is too, whatever this request's Accept-Language asks (docs/languages.md).
  if (answer.language) {
    ctx.set('Content-Language', answer.language);
    ctx.vary('Accept-Language');
  }
  ctx.set('Idempotent-Replayed', 'true');
}

/** The answer already written to `ctx` (input refused before the operation ran), as a repeat would get it. */
function answerOf(ctx: AppContext): FinalAnswer {
  const body = typeof ctx.body === 'string' || Buffer.isBuffer(ctx.body) ? String(ctx.body) : '';
  const location = ctx.status === 201 ? ctx.response.get('Location') : '';
  const language = ctx.response.get('Content-Language');
  return { status: ctx.status, body, codes: [], ...(location ? { location } : {}), ...(language ? { language } : {}) };
}

/** What a claim's request came to, for its key's row: a 503 is not kept (nothing was done), an unknown outcome is. */
function outcomeOf(answer: FinalAnswer): Outcome {
  if (answer.codes.some((code) => code.endsWith('OutcomeUnknown'))) return { kind: 'unknown' };
  if (answer.status === 503) return { kind: 'release' };
  return { kind: 'complete', answer: storable(answer) };
}

/**
 * `Idempotency-Key` on POST (contract part 3, "Retries"), for authenticated callers: a key is scoped by the caller and
 * the path, claimed by a unique insert before the operation runs, and then holds the operation's answer for
 * RestAPI:IdempotencyKeepSeconds. A repeat answers that answer again (or waits for it); a different body is a 422.
 * Answers that are infrastructure faults (503) free the key, so a retry runs again; an unknown outcome never does.
 * An outcome the store failed to take is kept by this process and written once the store answers (claims-in-hand.ts);
 * a repeat whose key is held by a process that has ended answers at once that the outcome is unknown, instead of
 * waiting for an answer that can never come.
 */
export function idempotencyKeys(store: IdempotencyKeyStore, options: IdempotencyOptions): Middleware<AppState, AppExtensions> {
  const claims = new ClaimsInHand(store, processIdentity(), options.log, options.keepMs);
  let nextPurge = 0;
  const purgeNowAndThen = () => {
    if (Date.now() < nextPurge) return;
    nextPurge = Date.now() + options.purgeEveryMs;
    store.purgeExpired().catch((err: unknown) => options.log.warn('idempotency key cleanup failed', { error: String(err) }));
  };

  /** Claims the key as `claimedBy`; a claim whose insert may have landed unseen is freed later (claims-in-hand.ts). */
  async function claim(keyHash: string, fingerprint: string, claimedBy: string): Promise<KeyState> {
    try {
      return await store.claim(keyHash, fingerprint, claimedBy);
    } catch (err) {
      claims.abandonClaim(keyHash, claimedBy);
      throw err;
    }
  }

  /**
   * A key found held, as far as its holder is known: one of this process's own claims whose outcome a store fault held
   * back is written first (the store answered this request) and the key looked at again; a claim whose process has
   * ended, or one of this process's that it forgot, can never record its outcome, which is unknown from now on.
   */
  async function judge(keyHash: string, fingerprint: string, claimedBy: string, state: KeyState): Promise<KeyState> {
    if (state.state !== 'running' || !state.claimedBy) return state;
    const standing = claims.standing(state.claimedBy);
    if (standing === 'held-back') {
      await claims.writeNow(state.claimedBy);
      return await store.look(keyHash, fingerprint) ?? await claim(keyHash, fingerprint, claimedBy);
    }
    if (standing === 'forgotten' || (standing === 'not-mine' && claims.holderGone(state.claimedBy))) {
      await store.markUnknown(keyHash, state.claimedBy);
      return await store.look(keyHash, fingerprint) ?? await claim(keyHash, fingerprint, claimedBy);
    }
    return state;
  }

  /** The key's state once the request holding it is done, or 'running' after waiting `waitMs`. */
  async function awaitFirst(keyHash: string, fingerprint: string, claimedBy: string, first: KeyState): Promise<KeyState> {
    const deadline = Date.now() + options.waitMs;
    let state = await judge(keyHash, fingerprint, claimedBy, first);
    for (let attempt = 0; state.state === 'running' && Date.now() < deadline; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS[Math.min(attempt, POLL_MS.length - 1)]));
      // Gone: the first one freed the key (an infrastructure fault); this one may run now.
      state = await judge(keyHash, fingerprint, claimedBy, await store.look(keyHash, fingerprint) ?? await claim(keyHash, fingerprint, claimedBy));
    }
    return state;
  }

  /** The key claimed for this request, or where the request holding it stands once it is done (or `waitMs` passed). */
  async function claimOrAwait(ctx: AppContext, keyHash: string, canonical: string, claimedBy: string): Promise<KeyState> {
    let fingerprint = canonical;
    let state = await claim(keyHash, fingerprint, claimedBy);
    if (state.state === 'mismatch') {
      // A key recorded before fingerprints were canonical (an upgrade less than IdempotencyKeepSeconds ago) holds the
      // hash of the body's JSON text as parsed: a repeat of that very body is still a repeat.
      const legacy = sha256(`${ctx.method}\u0000${ctx.path}\u0000${JSON.stringify(ctx.request.body ?? null)}`);
      const asBefore = legacy === fingerprint ? undefined : await store.look(keyHash, legacy);
      if (asBefore && asBefore.state !== 'mismatch') [state, fingerprint] = [asBefore, legacy];
    }
    return state.state === 'running' ? await awaitFirst(keyHash, fingerprint, claimedBy, state) : state;
  }

  return async (ctx: AppContext, next: Next) => {
    const key = ctx.get('Idempotency-Key');
    const principal = ctx.state.principal;
    // Anonymous callers share no identity to scope a key by (an address is shared behind NAT): their keys are ignored.
    if (!principal || (key === '' && ctx.headers['idempotency-key'] === undefined)) return next();
    if (!VALID_KEY.test(key)) throw invalidKey();
    // Keyed by tenant too (contract part 12): one user name in two tenants (an external issuer's) is two callers.
    // Without a tenant the key is what it was before tenancy, so keys stored by an earlier version still answer.
    const caller = principal.tenantId === undefined ? principal.userName : `${principal.tenantId}\u0000${principal.userName}`;
    const keyHash = sha256(`${caller}\u0000${ctx.path}\u0000${key}`);
    // The body as the model reads it: the same object with its keys in another order or case is the same request.
    const fingerprint = sha256(`${ctx.method}\u0000${ctx.path}\u0000${canonicalBody(ctx.request.body ?? null)}`);
    const claimedBy = claims.newClaim();
    let state: KeyState | undefined;
    try {
      state = await claimOrAwait(ctx, keyHash, fingerprint, claimedBy);
    } finally {
      if (state?.state !== 'claimed') claims.forgo(claimedBy);
    }
    switch (state.state) {
      case 'mismatch':
        return respond(ctx, [mismatch()]);
      case 'unknown':
        return respond(ctx, [outcomeUnknown()]);
      case 'running':
        ctx.set('Retry-After', '1');
        return respond(ctx, [inProgress()]);
      case 'done':
        return replay(ctx, state.answer);
      case 'claimed':
        break;
    }
    purgeNowAndThen();

    let handed: Promise<FinalAnswer> | undefined;
    ctx.state.settleAnswer = (answer) => {
      handed = answer;
    };
    const { requestId } = ctx.state;
    try {
      await next();
    } catch (err) {
      // Thrown before the operation ran (it would have handed its answer): nothing was done, the key is free again.
      if (!handed) await claims.settle(keyHash, claimedBy, { kind: 'release' }, requestId);
      throw err;
    }
    const answer = handed ?? Promise.resolve(answerOf(ctx));
    // An answer that never came (the operation threw past its own error handling) may have written: unknown.
    const recorded = answer.then((a) => outcomeOf(a), (): Outcome => ({ kind: 'unknown' }))
      .then((outcome) => claims.settle(keyHash, claimedBy, outcome, requestId));
    // Not awaited when the operation outlived the request timeout: the caller has its answer, the record follows.
    if (!handed || ctx.status !== 503) await recorded;
  };
}
