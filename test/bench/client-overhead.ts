/**
 * What the client adds per call compared with a bare fetch of the same route. Not a test (no timing is asserted):
 *   npx tsc -p . && node dist/test/bench/client-overhead.js [N]
 * Both call GET /sales-order/43659 with the same bearer token on the same server, sequentially, after a warm-up,
 * interleaved call by call. A second pair replaces the network with a canned answer, isolating the client's own work.
 */
import { RestClient } from 'restlayer/client';
import { SalesOrderProxy } from '../../services/sales-order/sales-order-proxy.js';
import { startTestServer } from '../support/server.js';
import { addUser } from '../support/users.js';

const N = Number(process.argv[2] ?? 2000);

async function time(label: string, n: number, fn: () => Promise<unknown>): Promise<number> {
  // Sequential on purpose: one call at a time, as the comparison is per call.
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn();
  const us = Number(process.hrtime.bigint() - start) / 1000 / n;
  console.log(`  ${label.padEnd(34)} ${us.toFixed(1).padStart(8)} µs/call`);
  return us;
}

const server = await startTestServer({ config: { Authentication: { PasswordHashCost: 10 } }, logLevel: 'error' });
try {
  await addUser(server, 'bench', 'bench-password-1');
  const settings = { BaseAddress: `http://127.0.0.1:${server.port}`, BasePath: server.config.RestAPI.Path };
  const client = new RestClient(settings);
  await client.login('bench', 'bench-password-1');
  const proxy = new SalesOrderProxy(client);
  const token = client.tokens!.tokens!.accessToken;
  const url = `${server.url}/sales-order/43659`;
  const bare = async () => {
    const res = await fetch(url, { headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } });
    const body = (await res.json()) as { result?: { salesOrderId: number } };
    if (body.result?.salesOrderId !== 43659) throw new Error('bad answer');
  };
  const viaClient = async () => {
    const output = await proxy.read(43659);
    if (output.result?.salesOrderId !== 43659) throw new Error('bad answer');
  };

  console.log(`GET /sales-order/43659, ${N} sequential calls each (node ${process.version})`);
  await time('warm-up bare fetch', 1000, bare);
  await time('warm-up client', 1000, viaClient);
  // Interleaved (bare, client, client, bare, ...): the server warming up or the machine getting busier weighs on both alike.
  const samples = { bare: [] as number[], client: [] as number[] };
  const once = async (fn: () => Promise<void>, into: number[]) => {
    const start = process.hrtime.bigint();
    await fn();
    into.push(Number(process.hrtime.bigint() - start) / 1000);
  };
  for (let i = 0; i < N; i++) {
    if (i % 2) {
      await once(bare, samples.bare);
      await once(viaClient, samples.client);
    } else {
      await once(viaClient, samples.client);
      await once(bare, samples.bare);
    }
  }
  const stats = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    return { mean, p50: sorted[Math.floor(xs.length * 0.5)], p90: sorted[Math.floor(xs.length * 0.9)] };
  };
  const b = stats(samples.bare);
  const c = stats(samples.client);
  const row = (label: string, s: { mean: number; p50: number; p90: number }) =>
    console.log(`  ${label.padEnd(26)} mean ${s.mean.toFixed(1).padStart(7)} µs   median ${s.p50.toFixed(1).padStart(7)} µs   p90 ${s.p90.toFixed(1).padStart(7)} µs`);
  row('bare fetch + res.json()', b);
  row('SalesOrderProxy.read', c);
  console.log(`  added by the client: mean ${(c.mean - b.mean).toFixed(1)} µs/call, median ${(c.p50 - b.p50).toFixed(1)} µs/call`);

  // The client's own work: the same answer served from memory, no network.
  const canned = (await (await fetch(url, { headers: { Authorization: `Bearer ${token}` } })).text());
  const stub: typeof fetch = async () => new Response(canned, { status: 200, headers: { 'Content-Type': 'application/json' } });
  const offline = new RestClient({ ...settings }, { fetch: stub });
  offline.tokens!.setTokens(client.tokens!.tokens!);
  const offlineProxy = new SalesOrderProxy(offline);
  const stubBare = async () => {
    await (await stub('x')).json();
  };
  console.log('without the network (canned answer)');
  await time('warm-up', 2000, () => offlineProxy.read(43659));
  const sb = await time('stub fetch + res.json()', N * 5, stubBare);
  const sc = await time('SalesOrderProxy.read over the stub', N * 5, () => offlineProxy.read(43659));
  console.log(`client work per call: ${(sc - sb).toFixed(1)} µs`);
} finally {
  await server.stop();
}
