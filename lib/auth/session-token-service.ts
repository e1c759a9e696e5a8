import { createHash, hkdfSync, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { CompiledQuery } from 'kysely';
import { signAccessToken } from './tokens.js';
import type { TokenSettings } from './token-keys.js';
import { verifyToken } from './token-verifier.js';
import { credentialAllowed } from './credential-stamp.js';
import type { TokenClaims } from './principal.js';
import { MESSAGES } from '../envelope/message-catalogue.js';
import { currentErrors } from '../envelope/request-scope.js';
import { Output } from '../envelope/output.js';
import { BoundedMap } from '../bounded-map.js';
import type { Storage } from '../storage/storage.js';
import { isForeignKeyViolation } from '../storage/unique-violation.js';
import type { AuthToken, RefreshInput, TokenSubject } from './auth-models.js';
import { lockRefreshTokens } from './refresh-locks.js';
import type { ITokenService } from './token-service.js';
import { type UserStore, credentialStateOf, userKey } from './user-store.js';

export interface SessionTokenOptions {
  settings: TokenSettings;
  refreshTokenDays: number;
  reuseGraceSeconds: number;
  /** How long a session found active is trusted before it is read again (0: read on every call). */
  sessionRecheckSeconds: number;
}

const invalidAccessToken = () => MESSAGES.Security_InvalidAccessToken();
const invalidRefreshToken = () => MESSAGES.Security_InvalidRefreshToken();
const sha256 = (token: string) => createHash('sha256').update(token).digest('base64url');

/**
 * The one successor of a refresh token: HKDF of the token (256 random bits) with the salt stored when it rotated.
 * Refreshes presenting the token together all get it, and only the token's holder can derive it: the store keeps
 * the salt and hashes, never a usable token.
 */
const successorOf = (token: string, salt: string) =>
  Buffer.from(hkdfSync('sha256', token, Buffer.from(salt, 'base64url'), 'restlayer refresh successor', 32)).toString('base64url');

/** The claims of a user's access token: who, their roles, their credential stamp and, when they have one, their tenant. */
const claimsOf = (user: TokenSubject) =>
  ({ sub: user.userName, name: user.name, role: user.roles, stamp: user.stamp, ...(user.tenantId ? { tid: user.tenantId } : {}) });

/** How many ended and active sessions are remembered. */
const SESSION_CACHE_SIZE = 10_000;

interface SessionState {
  revoked_date: string | Date | null;
  expires_date: string | Date;
}

export class SessionTokenService implements ITokenService {
  /** Sessions known to have ended: ending is final, so they never need asking again. */
  private readonly ended = new BoundedMap<string, true>(SESSION_CACHE_SIZE);

  /**
   * Sessions found active, with the time until which that answer is trusted. A read costs more than the rest of a
   * cached lookup call (the store's locks, each time); another process (`restlayer user disable`, another worker's
   * logout or reuse detection) may end a session at any moment, so the answer is trusted only for
   * `sessionRecheckSeconds`. Ends made here take effect at once: they are remembered in `ended`, or clear this.
   */
  private readonly active = new BoundedMap<string, number>(SESSION_CACHE_SIZE);

  /** Counts `revokeUser` calls: a read that started before one must not refill `active` after it. */
  private userRevocations = 0;

  constructor(private readonly storage: Storage, private readonly users: UserStore, private readonly options: SessionTokenOptions) {}

  async issue(user: TokenSubject, lifetimeSeconds?: number): Promise<Output<AuthToken>> {
    const now = new Date();
    const sessionId = randomUUID();
    const refreshToken = randomBytes(32).toString('base64url');
    try {
      await this.insertSession(user, sessionId, refreshToken, now);
    } catch (err) {
      if (!isForeignKeyViolation(err)) throw err;
      // The user was removed while their password was checked (`restlayer user remove`): as for an unknown user.
      currentErrors().add(MESSAGES.Login_InvalidCredentials());
      return Output.of();
    }
    const accessToken = signAccessToken(this.options.settings, { ...claimsOf(user), sid: sessionId }, lifetimeSeconds);
    return Output.of({ accessToken, refreshToken });
  }

  /** The login session and its first refresh token, in one transaction. */
  private async insertSession(user: TokenSubject, sessionId: string, refreshToken: string, now: Date): Promise<void> {
    const { db, values } = this.storage;
    await db.transaction().execute(async (trx) => {
      // Each login prunes its user's finished sessions, so the table does not grow without bound.
      await trx.deleteFrom('auth_session').where('user_key', '=', userKey(user.userName)).where('expires_date', '<', values.date(now)).execute();
      await trx.insertInto('auth_session').values({
        session_id: sessionId,
        user_key: userKey(user.userName),
        created_date: values.date(now),
        expires_date: values.date(new Date(now.getTime() + this.options.refreshTokenDays * 86_400_000)),
        revoked_date: null,
      }).execute();
      await trx.insertInto('refresh_token').values({
        token_hash: sha256(refreshToken), session_id: sessionId, issued_date: values.date(now), rotated_date: null, successor_salt: null,
      }).execute();
    });
  }

  async accessToken(user: TokenSubject, lifetimeSeconds?: number): Promise<Output<string>> {
    return Output.of(signAccessToken(this.options.settings, claimsOf(user), lifetimeSeconds));
  }

  async refresh(input: RefreshInput): Promise<Output<AuthToken>> {
    const errors = currentErrors();
    // Signature, algorithm, issuer and audience are checked; the lifetime is not (the caller is refreshing it).
    const claims = verifyToken(this.options.settings, input.accessToken, { ignoreExpiration: true });
    if (!claims || typeof claims.sub !== 'string') {
      errors.add(invalidAccessToken());
      return Output.of();
    }
    const outcome = await this.spend(input.refreshToken, claims);
    if (outcome.kind !== 'ok') {
      errors.add(invalidRefreshToken());
      return Output.of();
    }
    // Read fresh, not from a cache: a session of credentials ended since (disable, set-password, a login that raced
    // them) must not get a token of the user's current stamp.
    const user = await this.users.find(claims.sub);
    const credential = { stamp: typeof claims.stamp === 'string' ? claims.stamp : undefined, issuedAtMs: typeof claims.iat === 'number' ? claims.iat * 1000 : undefined };
    if (!user || !credentialAllowed(credentialStateOf(user), credential)) {
      await this.revokeSession(outcome.sessionId);
      errors.add(invalidRefreshToken());
      return Output.of();
    }
    // The tenant too is read fresh: a change of the user's tenantId applies from its next login or refresh.
    const tenantId = await this.users.tenantOf(user.userName);
    const accessToken = signAccessToken(this.options.settings, { ...claimsOf({ ...user, tenantId }), sid: outcome.sessionId });
    return Output.of({ accessToken, refreshToken: outcome.refreshToken });
  }

  /**
   * Spends a refresh token in one transaction. A current token rotates: its successor is derived and stored, the
   * only current token of the session from then on. A token rotated within the grace window (a refresh sent together
   * with the one that rotated it) answers that same successor and writes nothing, so concurrent refreshes never fork
   * the session. Any later reuse revokes the whole session.
   */
  private async spend(refreshToken: string, claims: TokenClaims): Promise<{ kind: 'ok'; sessionId: string; refreshToken: string } | { kind: 'invalid' | 'revoked' }> {
    const { db, dialect, values } = this.storage;
    const hash = sha256(refreshToken);
    const now = new Date();
    const graceMs = this.options.reuseGraceSeconds * 1000;
    const outcome = await db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('refresh_token as t')
        .innerJoin('auth_session as s', 's.session_id', 't.session_id')
        .select(['t.token_hash', 't.rotated_date', 't.successor_salt', 's.session_id', 's.user_key', 's.expires_date', 's.revoked_date'])
        .where('t.token_hash', '=', hash)
        // Concurrent refreshes of one token queue here instead of racing (where writers run side by side: PostgreSQL).
        .$if(dialect.locksRows, (q) => q.forUpdate())
        .executeTakeFirst();
      const matches = row && timingSafeEqual(Buffer.from(row.token_hash), Buffer.from(hash))
        && row.session_id === claims.sid && row.user_key === userKey(claims.sub!);
      if (!row || !matches || row.revoked_date != null || values.toDate(row.expires_date) <= now) return { kind: 'invalid' as const };
      if (row.rotated_date != null) {
        const rotatedAgo = now.getTime() - values.toDate(row.rotated_date).getTime();
        if (rotatedAgo > graceMs) {
          await trx.updateTable('auth_session').set({ revoked_date: values.date(now) }).where('session_id', '=', row.session_id).execute();
          return { kind: 'revoked' as const, sessionId: row.session_id };
        }
        // Rotated before successors were derived (an older version): there is no successor to share.
        if (row.successor_salt == null) return { kind: 'invalid' as const };
        return { kind: 'ok' as const, sessionId: row.session_id, refreshToken: successorOf(refreshToken, row.successor_salt) };
      }
      const salt = randomBytes(32).toString('base64url');
      const next = successorOf(refreshToken, salt);
      await trx.updateTable('refresh_token').set({ rotated_date: values.date(now), successor_salt: salt }).where('token_hash', '=', hash).execute();
      // Salts past the grace window are never used again; without them even a leaked old token derives nothing.
      await trx.updateTable('refresh_token').set({ successor_salt: null })
        .where('session_id', '=', row.session_id).where('rotated_date', '<', values.date(new Date(now.getTime() - graceMs)))
        .where('successor_salt', 'is not', null).execute();
      await trx.insertInto('refresh_token').values({
        token_hash: sha256(next), session_id: row.session_id, issued_date: values.date(now), rotated_date: null, successor_salt: null,
      }).execute();
      return { kind: 'ok' as const, sessionId: row.session_id, refreshToken: next };
    });
    if (outcome.kind === 'revoked') this.remember(outcome.sessionId);
    return outcome;
  }

  async rotate(userName: string | null): Promise<Output<number>> {
    const { db, dialect } = this.storage;
    const key = userName === null ? null : userKey(userName);
    const deleted = await db.transaction().execute(async (trx) => {
      // A refresh in flight would otherwise commit a successor this delete does not see, and it would live on.
      await lockRefreshTokens(trx, dialect, key);
      const sessions = trx.selectFrom('auth_session').select('session_id').$if(key !== null, (q) => q.where('user_key', '=', key!));
      return (await trx.deleteFrom('refresh_token').where('session_id', 'in', sessions).executeTakeFirst()).numDeletedRows;
    });
    return Output.of(Number(deleted));
  }

  async revokeSession(sessionId: string): Promise<void> {
    const { db, values } = this.storage;
    await db.updateTable('auth_session').set({ revoked_date: values.date(new Date()) }).where('session_id', '=', sessionId).execute();
    this.remember(sessionId);
  }

  /** Ends every session of a user at once, access tokens included. */
  async revokeUser(userName: string): Promise<void> {
    const { db, values } = this.storage;
    await db.updateTable('auth_session').set({ revoked_date: values.date(new Date()) })
      .where('user_key', '=', userKey(userName)).where('revoked_date', 'is', null).execute();
    // Which cached sessions are the user's is not known here; forgetting all costs one read per session.
    this.userRevocations++;
    this.active.clear();
  }

  private sessionQuery?: CompiledQuery<SessionState>;

  isSessionActive(sessionId: string): boolean | Promise<boolean> {
    if (this.ended.has(sessionId)) return false;
    const trustedUntil = this.active.get(sessionId);
    if (trustedUntil !== undefined && Date.now() < trustedUntil) return true;
    return this.readSessionState(sessionId);
  }

  private async readSessionState(sessionId: string): Promise<boolean> {
    const { db, values } = this.storage;
    const revocationsBefore = this.userRevocations;
    // The trust window counts from before the read: the store's answer may be that old when it arrives.
    const asked = Date.now();
    // The query is built and compiled once, then run with each session id; read at once when the store allows it.
    this.sessionQuery ??= db.selectFrom('auth_session').select(['revoked_date', 'expires_date']).where('session_id', '=', '').compile();
    const query: CompiledQuery<SessionState> = { ...this.sessionQuery, parameters: [sessionId] };
    const rows = this.storage.readNow?.(query) ?? (await db.executeQuery(query)).rows;
    const row = rows[0];
    const now = Date.now();
    const expires = row ? values.toDate(row.expires_date).getTime() : 0;
    if (!row || row.revoked_date != null || expires <= now) {
      this.remember(sessionId);
      return false;
    }
    if (this.ended.has(sessionId)) return false;
    // A request racing a revocation may pass, but its answer must not outlive the revocation in the cache.
    if (this.options.sessionRecheckSeconds > 0 && this.userRevocations === revocationsBefore) {
      this.active.set(sessionId, Math.min(asked + this.options.sessionRecheckSeconds * 1000, expires));
    }
    return true;
  }

  private remember(sessionId: string) {
    this.active.delete(sessionId);
    this.ended.set(sessionId, true);
  }
}
