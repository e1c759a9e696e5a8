import type { Output } from '../envelope/output.js';
import type { UserInfo } from '../auth/auth-models.js';
import { clientOutput } from './errors.js';
import type { HttpCall, HttpReply } from './http.js';
import { ClientSession } from './session.js';

/**
 * `RemoteApi:Authorization` false: the cookie login (variant A). `login` posts to `/auth/cookie`; the session cookie
 * then goes with every call: in Node from the client's cookie jar, with an `Origin` header of BaseAddress on
 * POST/PUT/PATCH/DELETE (the server refuses cookie-authenticated changes without an allowed Origin); in a browser
 * through `credentials: 'include'` and the browser's own cookies and Origin. A 401 means the cookie session is over
 * (idle or absolute timeout, logout elsewhere, user disabled): Login_SessionExpired.
 */
export class CookieSession extends ClientSession {
  private user?: UserInfo;

  /** The user of the current login, as `/auth/cookie` answered it. */
  get currentUser(): UserInfo | undefined {
    return this.user;
  }

  async login(userName: string, password: string): Promise<Output<UserInfo>> {
    const { output } = await this.http.send<UserInfo>({ verb: 'POST', path: '/auth/cookie', body: { userName, password }, dates: 'none' });
    if (output.result) {
      this.user = output.result;
      this.started();
    }
    return output;
  }

  /**
   * Asks the server whose session the cookie is (`GET /auth/session`, anonymous): the user, or no result when there
   * is none. A page that starts without knowing (the cookie is HttpOnly) asks this instead of a secured route, so a
   * first visit gets no 401 and no sessionexpired event.
   */
  async resume(): Promise<Output<UserInfo | undefined>> {
    const { output } = await this.http.send<UserInfo | undefined>({ verb: 'GET', path: '/auth/session', dates: 'none' });
    this.user = output.result;
    if (output.result) this.started();
    return output;
  }

  async logout(): Promise<Output<unknown>> {
    if (!this.user && this.http.environment === 'node') return clientOutput(undefined, []);
    const { output } = await this.http.send<unknown>({ verb: 'POST', path: '/auth/logout', body: {} });
    this.forget();
    return output;
  }

  async run<T>(call: HttpCall): Promise<HttpReply<T>> {
    const reply = await this.http.send<T>(call);
    if (reply.status === 401) this.expire(reply.output.messages);
    return reply;
  }

  protected forget(): void {
    this.user = undefined;
    this.http.clearCookies();
  }
}
