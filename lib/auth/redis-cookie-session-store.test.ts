import { expect } from 'chai';
import { suiteRedis } from '../testing/suite-redis.js';
import { testRedis } from '../testing/test-stores.js';
import { RedisCookieSessionStore } from './redis-cookie-session-store.js';

/**
 * Ending a user's sessions in Redis while the user logs in again: the sessions read are ended, and the new one stays
 * listed for the user (so the next end, a disable, reaches it). The set was deleted whole, dropping a session added
 * between the read of its members and the delete.
 */
(testRedis ? describe : describe.skip)('RedisCookieSessionStore: a login while the user\'s sessions end @stores', () => {
  const redis = suiteRedis('cookie-sessions');

  it('ends the sessions it read and keeps the one added meanwhile in the user\'s set', async () => {
    const store = new RedisCookieSessionStore(redis!);
    const session = { user: { userName: 'ann', name: 'Ann', roles: [] }, loginAt: Date.now() };
    await store.set('old-1', session, 60_000);
    await store.set('old-2', session, 60_000);
    // The login lands right after the members were read.
    const smembers = redis!.smembers.bind(redis!);
    (redis as unknown as { smembers: typeof smembers }).smembers = (async (key: string) => {
      const members = await smembers(key);
      await store.set('new-1', session, 60_000);
      return members;
    }) as typeof smembers;
    try {
      await store.destroyForUser('ann');
    } finally {
      (redis as unknown as { smembers: typeof smembers }).smembers = smembers;
    }
    expect([await store.get('old-1'), await store.get('old-2')]).to.deep.equal([undefined, undefined]);
    expect(await store.get('new-1')).to.deep.include({ loginAt: session.loginAt });
    // Still listed: the next end reaches it.
    await store.destroyForUser('ann');
    expect(await store.get('new-1')).to.equal(undefined);
  });
});
