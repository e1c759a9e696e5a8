import { Agent, request } from 'node:http';
import { expect } from 'chai';
import { requireServices } from '../support/hooks.js';
import { report } from './fault-harness.js';
import { type Stand, stands } from './stands.js';
import { WHY_ONE_STORE, describeOneStore, apart } from '../support/stores.js';

/** What became of one request a kept-alive client sent. */
interface Sent {
  sentAt: number;
  /** Sent on a connection an earlier request had used (the socket was kept alive). */
  reused: boolean;
  status?: number;
  /** The answer's Connection header. */
  connection?: string;
  /** The error instead of an answer (ECONNRESET, ECONNREFUSED, ...). */
  error?: string;
  comment?: string;
}

/** One request on `agent` (one socket, kept alive), recorded whatever happens. */
function send(agent: Agent, url: string, token: string, comment?: string): Promise<Sent> {
  const sentAt = Date.now();
  return new Promise((resolve) => {
    const body = comment ? JSON.stringify({ customerId: 11000, status: 1, onlineOrderFlag: true, comment }) : undefined;
    const req = request(comment ? `${url}/sales-order` : `${url}/sales-order/43659`, {
      agent, method: comment ? 'POST' : 'GET', timeout: 15_000,
      headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve({ sentAt, reused: req.reusedSocket, status: res.statusCode, connection: res.headers.connection, comment }));
      res.on('error', (err: NodeJS.ErrnoException) => resolve({ sentAt, reused: req.reusedSocket, error: err.code ?? err.message, comment }));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('no answer'), { code: 'TIMEOUT' })));
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ sentAt, reused: req.reusedSocket, error: err.code ?? err.message, comment }));
    req.end(body);
  });
}

/**
 * Issue 38.6: SIGTERM under load dropped requests on kept-alive connections (5 on SQLite, 7 on PostgreSQL got a reset
 * instead of an answer): the drain closed connections that were idle at that instant, while their clients were
 * already sending the next request on them. Answers during the drain carry `Connection: close`, so a client stops
 * using its connection once told; in-flight requests finish; and no acknowledged write is lost.
 */
for (const store of ['sqlite', 'postgres'] as const) {
  describeOneStore(apart(`faults: SIGTERM under load on kept-alive connections (${store}, serve --workers 2)`), WHY_ONE_STORE.faults, function () {
    this.timeout(120_000);
    let stand: Stand;

    before(async function () {
      if (store === 'postgres') await requireServices(this, ['postgres', 'redis'], 'the SIGTERM drain test on PostgreSQL');
      stand = await stands[store]();
    });
    after(() => stand?.stop());

    it('every request sent on a kept-alive connection is answered; answers during the drain say Connection: close; no write is lost', async () => {
      const clients = 16;
      const sent: Sent[] = [];
      let stopAt: number | undefined;
      let n = 0;
      const agents = Array.from({ length: clients }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
      const loads = agents.map(async (agent, c) => {
        // Each client sends one request after another on its one connection, with short pauses, as a busy client
        // (a proxy, a service) does, until the server refuses it a new connection.
        for (;;) {
          const s = await send(agent, stand.url, stand.token, c % 2 ? `drain-${store}-${++n}` : undefined);
          sent.push(s);
          if (s.error && !s.reused) return;
          if (stopAt && Date.now() - stopAt > 30_000) return;
          await new Promise((r) => setTimeout(r, Math.random() * 15));
        }
      });
      // Under way on every connection, then SIGTERM.
      await new Promise((r) => setTimeout(r, 1_000));
      stopAt = Date.now();
      stand.server.child.kill('SIGTERM');
      await Promise.all(loads);
      const exit = await stand.server.exited;
      for (const agent of agents) agent.destroy();

      const before = sent.filter((s) => s.sentAt < stopAt!);
      const during = sent.filter((s) => s.sentAt >= stopAt!);
      const dropped = sent.filter((s) => s.error && s.reused);
      const closing = during.filter((s) => s.status !== undefined && s.connection === 'close');
      const acknowledged = sent.filter((s) => s.comment && s.status === 201);
      const saved = await Promise.all(acknowledged.map((s) => stand.ordersWith(s.comment!)));
      const errors = [...new Set(sent.filter((s) => s.error).map((s) => `${s.error}${s.reused ? ' (kept-alive)' : ' (new connection)'}`))];
      report(`${store}: ${before.length} requests before SIGTERM, ${during.length} after it (${closing.length} answered with Connection: close); `
        + `dropped on kept-alive connections: ${dropped.length}; errors: ${errors.join(', ') || 'none'}; `
        + `${acknowledged.length} writes acknowledged, ${saved.filter((x) => x !== 1).length} lost; exit ${JSON.stringify(exit)}`);
      expect(dropped.map((s) => `${s.error} ${s.sentAt - stopAt!} ms after SIGTERM`), 'requests dropped on kept-alive connections').to.deep.equal([]);
      // The drain was under load: requests on kept-alive connections were answered after SIGTERM, told to close.
      expect(closing, 'answers during the drain with Connection: close').to.not.be.empty;
      // Nothing sent before SIGTERM went unanswered.
      expect(before.filter((s) => s.status === undefined).map((s) => s.error)).to.deep.equal([]);
      expect(sent.filter((s) => s.status !== undefined && s.status >= 500).map((s) => s.status)).to.deep.equal([]);
      expect(saved.filter((x) => x !== 1), 'acknowledged writes not saved once').to.deep.equal([]);
      expect(exit).to.deep.equal({ code: 0, signal: null });
    });
  });
}
