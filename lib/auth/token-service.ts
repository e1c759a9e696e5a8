import type { Output } from '../envelope/output.js';
import type { AuthToken, RefreshInput, TokenSubject } from './auth-models.js';

/** Variant A tokens: an access JWT plus a rotating refresh token, both bound to one login session. */
export interface ITokenService {
  /** Starts a login session for the user and answers its first token pair. */
  issue(user: TokenSubject, lifetimeSeconds?: number): Promise<Output<AuthToken>>;
  /** A bare access token with no refresh session: variant B's only token, and what tools use. */
  accessToken(user: TokenSubject, lifetimeSeconds?: number): Promise<Output<string>>;
  /**
   * Rotates: the presented refresh token is spent, a new pair answers. Refreshes presenting one token within the
   * grace window all get the same successor; reuse after it revokes the session.
   */
  refresh(input: RefreshInput): Promise<Output<AuthToken>>;
  /** Spends every refresh token of one user (or all users): they log in again once their access token expires. */
  rotate(userName: string | null): Promise<Output<number>>;
  /** Ends one login session (logout), its access tokens included. */
  revokeSession(sessionId: string): Promise<void>;
  /** Ends every session of a user at once, its access tokens included. */
  revokeUser(userName: string): Promise<void>;
  /**
   * Whether access tokens of this session may still be used (false once revoked). Runs on every bearer call, so an
   * answer already known comes back as is, not as a promise.
   */
  isSessionActive(sessionId: string): boolean | Promise<boolean>;
}
