import { expect } from 'chai';
import { UserAccess } from './user-access.js';
import type { AccessState, UserStore } from './user-store.js';
import { NO_ATTRIBUTES } from './user-attributes.js';

/** A store whose user is changed "by another process": the cache sees it only when it reads again. */
function storeOf(states: AccessState[]): { store: UserStore; reads: () => number } {
  let reads = 0;
  const store = { accessState: async () => states[Math.min(reads++, states.length - 1)] } as unknown as UserStore;
  return { store, reads: () => reads };
}

describe('UserAccess: the per-user cache of credential states', () => {
  const removed: AccessState = { state: { exists: false, endedMs: Date.now() - 5_000 }, attributes: NO_ATTRIBUTES };
  const added: AccessState = { state: { exists: true, disabled: false, stamp: 'new', endedMs: 0 }, attributes: NO_ATTRIBUTES };

  it('a credential issued after the cached read is refused only by the store: a user added again elsewhere logs in at once', async () => {
    const { store, reads } = storeOf([removed, added]);
    const access = new UserAccess(store, 60);
    // An old token of the removed user: refused, and the state is kept.
    expect((await access.check('gil', { stamp: 'old', issuedAtMs: Date.now() - 60_000 })).allowed).to.equal(false);
    expect((await access.check('gil', { stamp: 'old', issuedAtMs: Date.now() - 60_000 })).allowed).to.equal(false);
    expect(reads()).to.equal(1);
    // The user is added again by another process; a token of its new login is checked against the store, not the cache.
    expect((await access.check('gil', { stamp: 'new', issuedAtMs: Date.now() })).allowed).to.equal(true);
    expect(reads()).to.equal(2);
    // Allowed answers stay cached.
    expect((await access.check('gil', { stamp: 'new', issuedAtMs: Date.now() })).allowed).to.equal(true);
    expect(reads()).to.equal(2);
  });
});
