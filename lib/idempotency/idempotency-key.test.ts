import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import Koa from 'koa';
import type { AppExtensions, AppState } from '../http/context.js';
import { createLogger } from '../log.js';
import { describeStores } from '../testing/stores.js';
import { type TestServer, startTestServer } from '../testing/test-server.js';
import { idempotencyKeys } from './idempotency-key.js';
import { IdempotencyKeyStore, type KeyState } from './key-store.js';

/** The real store, whose claims are answered late: the row is in, the reply not yet read (a busy pool, a slow event loop). */
class LateToHear extends IdempotencyKeyStore {
  /** Resolved once a claim's row is in (and its reply held back). */
  landed!: Promise<void>;
  private land!: () => void;

  expectClaim(): void {
    this.landed = new Promise((resolve) => {
      this.land = resolve;
    });
  }

  override async claim(keyHash: string, fingerprint: string, claimedBy: string): Promise<KeyState> {
    const state = await super.claim(keyHash, fingerprint, claimedBy);
    if (state.state === 'claimed') {
      this.land();
      await sleep(300);
    }
    return state;
  }
}

/**
 * Two requests of one process with one key, the second's look answered before the first hears its claim landed. The
 * second found a claim of its own process that was not yet running and took it for forgotten: the key was marked
 * unknown, the second answered 409 Request_IdempotencyOutcomeUnknown and the first's answer was never kept (seen on
 * PostgreSQL in CI: "2 requests with one key sent at once").
 */
describeStores('Idempotency-Key: a repeat arriving while the first request has not yet heard its claim landed', function () {
  this.timeout(30_000);
  let server: TestServer;
  let url: string;
  let close: () => void;
  let ran = 0;
  let store: LateToHear;
  const routesDir = mkdtempSync(join(tmpdir(), 'restlayer-idempotency-'));
  before(async () => {
    server = await startTestServer({ application: { modules: [], routesDir } });
    store = new LateToHear(server.infrastructure.storage, { keepMs: 60_000, staleMs: 600_000 });
    const app = new Koa<AppState, AppExtensions>();
    app.use(async (ctx, next) => {
      ctx.state.requestId = 'test';
      ctx.state.principal = { userName: 'someone', name: 'Someone', roles: [], authenticationType: 'Bearer', attributes: {} };
      await next();
    });
    app.use(idempotencyKeys(store, { waitMs: 10_000, purgeEveryMs: 60_000, keepMs: 60_000, log: createLogger('error') }));
    app.use(async (ctx) => {
      ran++;
      ctx.status = 201;
      ctx.type = 'application/json';
      ctx.body = JSON.stringify({ result: { run: ran }, messages: [] });
    });
    const listening = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => listening.once('listening', resolve));
    url = `http://127.0.0.1:${(listening.address() as AddressInfo).port}/thing`;
    close = () => listening.close();
  });
  after(async () => {
    close?.();
    await server?.stop();
    rmSync(routesDir, { recursive: true, force: true });
  });

  it('waits for the first request\'s answer and replays it; the operation runs once', async () => {
    const post = async () => {
      const reply = await fetch(url, { method: 'POST', headers: { 'Idempotency-Key': 'late-1' } });
      return { status: reply.status, text: await reply.text(), replayed: reply.headers.get('Idempotent-Replayed') };
    };
    store.expectClaim();
    const first = post();
    // Inside the first claim's 300 ms: its row is in, its reply unread.
    await store.landed;
    const second = await post();
    expect(await first).to.deep.equal({ status: 201, text: '{"result":{"run":1},"messages":[]}', replayed: null });
    expect(second).to.deep.equal({ status: 201, text: '{"result":{"run":1},"messages":[]}', replayed: 'true' });
    expect(ran).to.equal(1);
  });
});
