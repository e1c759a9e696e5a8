import type { Storage } from '../storage/storage.js';
import { userKey } from './user-store.js';

/** What a cookie login keeps on the server; the cookie itself only carries the signed session key. */
export interface CookieSessionData {
  user?: { userName: string; name: string; roles: string[]; tenantId?: string };
  /** Epoch ms of the login, for the absolute lifetime. */
  loginAt?: number;
  /** The user's credential stamp at login: the session stops when the user's stamp changes. */
  stamp?: string;
  [key: string]: unknown;
}

/** koa-session's external store; it can end every session of a user at once (when the user is disabled). */
export interface ICookieSessionStore {
  get(key: string): Promise<CookieSessionData | undefined>;
  set(key: string, session: CookieSessionData, maxAge: number | 'session' | undefined): Promise<void>;
  /**
   * Saves a session the request loaded (its idle lifetime renewed) only if it still exists: a request that loaded it
   * before a logout or a user's end must not bring it back when it finishes.
   */
  renew(key: string, session: CookieSessionData, maxAge: number | 'session' | undefined): Promise<void>;
  destroy(key: string): Promise<void>;
  destroyForUser(userName: string): Promise<void>;
}

/** Cookie sessions in the database: shared by every process that uses it. */
export class SqlCookieSessionStore implements ICookieSessionStore {
  constructor(private readonly storage: Storage) {}

  async get(key: string): Promise<CookieSessionData | undefined> {
    const { db, values } = this.storage;
    const row = await db.selectFrom('cookie_session').select(['data', 'expires_date']).where('session_key', '=', key).executeTakeFirst();
    if (!row || values.toDate(row.expires_date).getTime() <= Date.now()) return undefined;
    return JSON.parse(row.data) as CookieSessionData;
  }

  async set(key: string, session: CookieSessionData, maxAge: number | 'session' | undefined): Promise<void> {
    const { db, values } = this.storage;
    const ttl = typeof maxAge === 'number' ? maxAge : 86_400_000;
    const row = {
      session_key: key,
      user_key: session.user ? userKey(session.user.userName) : null,
      data: JSON.stringify(session),
      expires_date: values.date(new Date(Date.now() + ttl)),
    };
    await db.insertInto('cookie_session').values(row)
      .onConflict((oc) => oc.column('session_key').doUpdateSet({ user_key: row.user_key, data: row.data, expires_date: row.expires_date }))
      .execute();
  }

  async renew(key: string, session: CookieSessionData, maxAge: number | 'session' | undefined): Promise<void> {
    const { db, values } = this.storage;
    const ttl = typeof maxAge === 'number' ? maxAge : 86_400_000;
    await db.updateTable('cookie_session').set({ data: JSON.stringify(session), expires_date: values.date(new Date(Date.now() + ttl)) })
      .where('session_key', '=', key).execute();
  }

  async destroy(key: string): Promise<void> {
    await this.storage.db.deleteFrom('cookie_session').where('session_key', '=', key).execute();
  }

  async destroyForUser(userName: string): Promise<void> {
    const { db, values } = this.storage;
    await db.deleteFrom('cookie_session').where((eb) => eb.or([
      eb('user_key', '=', userKey(userName)),
      eb('expires_date', '<', values.date(new Date())),
    ])).execute();
  }
}
