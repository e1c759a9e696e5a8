import type { Redis } from 'ioredis';
import type { CookieSessionData, ICookieSessionStore } from './cookie-session-store.js';
import { userKey } from './user-store.js';

const DAY = 86_400_000;

/** Cookie sessions in Redis (with their own expiry), plus a set per user so a disabled user's sessions can end. */
export class RedisCookieSessionStore implements ICookieSessionStore {
  constructor(private readonly redis: Redis) {}

  private key = (key: string) => `session:${key}`;
  private userSet = (userName: string) => `user-sessions:${userKey(userName)}`;

  async get(key: string): Promise<CookieSessionData | undefined> {
    const data = await this.redis.get(this.key(key));
    return data ? (JSON.parse(data) as CookieSessionData) : undefined;
  }

  async set(key: string, session: CookieSessionData, maxAge: number | 'session' | undefined): Promise<void> {
    const ttl = typeof maxAge === 'number' ? maxAge : DAY;
    const multi = this.redis.multi().set(this.key(key), JSON.stringify(session), 'PX', ttl);
    if (session.user) multi.sadd(this.userSet(session.user.userName), key).pexpire(this.userSet(session.user.userName), 30 * DAY);
    await multi.exec();
  }

  async renew(key: string, session: CookieSessionData, maxAge: number | 'session' | undefined): Promise<void> {
    // XX: only if the key still exists, in the same command as the write.
    await this.redis.set(this.key(key), JSON.stringify(session), 'PX', typeof maxAge === 'number' ? maxAge : DAY, 'XX');
  }

  async destroy(key: string): Promise<void> {
    await this.redis.del(this.key(key));
  }

  async destroyForUser(userName: string): Promise<void> {
    const keys = await this.redis.smembers(this.userSet(userName));
    if (!keys.length) return;
    // Exactly the sessions read, from the set too: a login's session added meanwhile stays listed (and is ended by
    // the next call), where deleting the whole set would leave it untracked.
    await this.redis.multi().del(...keys.map(this.key)).srem(this.userSet(userName), ...keys).exec();
  }
}
