import type { ErrorMessage } from '../envelope/error-message.js';
import type { Output } from '../envelope/output.js';
import { SessionExpiredError, SessionExpiredEvent } from './errors.js';
import type { HttpCall, HttpCore, HttpReply } from './http.js';

/**
 * How secured calls are authenticated: bearer tokens (TokenService) or the cookie login (CookieSession).
 * It is an EventTarget: `sessionexpired` (SessionExpiredEvent) is dispatched once when the session ends, however
 * many calls fail with the SessionExpiredError it carries; a new login arms it again.
 */
export abstract class ClientSession extends EventTarget {
  private endNotified = false;

  constructor(protected readonly http: HttpCore) {
    super();
  }

  /** Logs in with a user name and password; failures come back as messages (e.g. 401 Login_InvalidCredentials). */
  abstract login(userName: string, password: string): Promise<Output<unknown>>;
  /** Ends the session on the server (where there is one) and forgets it here. */
  abstract logout(): Promise<Output<unknown>>;
  /** Sends a secured call with the session's credentials; throws SessionExpiredError when the session cannot go on. */
  abstract run<T>(call: HttpCall): Promise<HttpReply<T>>;

  /** Subscribes to the end of the session; answers a function that unsubscribes. */
  onSessionExpired(listener: (error: SessionExpiredError) => void): () => void {
    const handler = (event: Event) => listener((event as SessionExpiredEvent).error);
    this.addEventListener(SessionExpiredEvent.type, handler);
    return () => this.removeEventListener(SessionExpiredEvent.type, handler);
  }

  /** A login (re)starts the session: its end will be announced again. */
  protected started(): void {
    this.endNotified = false;
  }

  /** Forgets the credentials, announces the end once, and throws the error every waiting call gets. */
  protected expire(serverMessages: ErrorMessage[]): never {
    this.forget();
    const error = new SessionExpiredError(serverMessages);
    if (!this.endNotified) {
      this.endNotified = true;
      this.dispatchEvent(new SessionExpiredEvent(error));
    }
    throw error;
  }

  protected abstract forget(): void;
}
