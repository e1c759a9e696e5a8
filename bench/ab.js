// `node bench/ab.js --env-b KEY=VALUE[,KEY=VALUE] [options]`: one restlayer route, two configurations side by side,
// in interleaved rounds on the same store, to measure a setting's cost when the machine's drift between separate
// runs is larger than the difference (a log destination, a pool size). A is restlayer as `npm run bench` runs it;
// B adds the environment given. Prints req/s and server CPU µs per request of each round and their medians.
//
//   --route R        lookup, get, get-own, list, put, put-own (default put)
//   --store S        sqlite (default) or postgres (a scratch database, created and dropped)
//   --env-a / --env-b   settings of each side (restlayer's KEY__SUB=VALUE environment, comma-separated)
//   --dist-a DIR     side A runs another build (DIR/bin/restlayer.js), e.g. main's, to measure a code change:
//                    git worktree add /tmp/base main && (cd /tmp/base && npm ci && npx tsc -p .), then --dist-a /tmp/base/dist
//   --rounds N       (default 6) · --duration S (default 8) · --warmup S (default 3) · --connections N (default 100)
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureBuilt, ensureInstalled } from './lib/setup.js';

ensureInstalled();
ensureBuilt();
const { runLoad } = await import('./lib/load.js');
const { canPin, killAll, pinSelf } = await import('./lib/processes.js');
const { median } = await import('./lib/report.js');
const { prepareRestlayer, scratchDatabase, startRestlayer } = await import('./lib/restlayer.js');

const { values } = parseArgs({
  options: {
    route: { type: 'string', default: 'put' },
    store: { type: 'string', default: 'sqlite' },
    'env-a': { type: 'string', default: '' },
    'env-b': { type: 'string', default: '' },
    'dist-a': { type: 'string' },
    rounds: { type: 'string', default: '6' },
    duration: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '100' },
  },
});
const settings = (text) => Object.fromEntries(text.split(',').filter(Boolean).map((pair) => {
  const at = pair.indexOf('=');
  if (at < 1) throw new Error(`${pair}: use KEY=VALUE`);
  return [pair.slice(0, at), pair.slice(at + 1)];
}));
const sides = { A: settings(values['env-a']), B: settings(values['env-b']) };

const pin = cpus().length >= 2 && canPin();
if (pin) pinSelf('0');
const work = mkdtempSync(join(tmpdir(), 'restlayer-ab-'));
const scratch = values.store === 'postgres' ? await scratchDatabase('ab') : undefined;
const postgresUrl = scratch?.url;
const servers = {};
const cleanup = async () => {
  // Stopped before their folder goes: a killed server's start promise reads its log.
  await Promise.all(Object.values(servers).map((server) => server.stop()));
  killAll();
  rmSync(work, { recursive: true, force: true });
  await scratch?.drop();
};
process.once('SIGINT', () => cleanup().finally(() => process.exit(130)));

try {
  const prepared = await prepareRestlayer(work, { postgresUrl });
  const auth = { authorization: `Bearer ${prepared.accessToken}` };
  const own = { authorization: `Bearer ${prepared.salesPersonToken}` };
  const json = (h) => ({ ...h, 'content-type': 'application/json' });
  const body = JSON.stringify({ status: 2, onlineOrderFlag: false });
  const routes = {
    lookup: { request: { method: 'GET', path: '/lookup-table/operators', headers: auth } },
    list: { request: { method: 'GET', path: '/sales-order?take=50&status=5&sort[0].fieldName=orderDate&sort[0].sortDirection=Descending&getTotalCount=true', headers: auth } },
    get: { rotate: { method: 'GET', headers: auth } },
    'get-own': { rotate: { method: 'GET', headers: own }, ids: `salesPersonId=${prepared.salesPersonId}` },
    put: { rotate: { method: 'PUT', headers: json(auth), body } },
    'put-own': { rotate: { method: 'PUT', headers: json(own), body }, ids: `salesPersonId=${prepared.salesPersonId}` },
  };
  const route = routes[values.route];
  if (!route) throw new Error(`unknown route ${values.route}: use ${Object.keys(routes).join(', ')}`);
  const cli = { A: values['dist-a'] ? join(values['dist-a'], 'bin', 'restlayer.js') : undefined };
  for (const [side, env] of Object.entries(sides)) servers[side] = await startRestlayer(prepared, `ab-${side}`, { cpus: pin ? '1' : undefined, env, cli: cli[side] });
  let requests;
  if (route.rotate) {
    const ids = (await (await fetch(`${servers.A.url}/sales-order?take=1000&${route.ids ?? 'skip=500'}`, { headers: auth })).json()).result.map((o) => o.salesOrderId);
    let next = 0;
    requests = [{ ...route.rotate, setupRequest: (req) => ({ ...req, path: `/sales-order/${ids[next++ % ids.length]}` }) }];
  }
  const options = { connections: Number(values.connections), pipelining: 1, timeout: 60 };
  const results = { A: [], B: [] };
  for (const side of ['A', 'B']) await runLoad({ url: servers[side].url, pid: servers[side].pid, request: route.request, requests }, { ...options, duration: Number(values.warmup) });
  for (let round = 0; round < Number(values.rounds); round++) {
    // Alternate which side goes first, so neither always follows the other's load.
    for (const side of round % 2 ? ['B', 'A'] : ['A', 'B']) {
      const r = await runLoad({ url: servers[side].url, pid: servers[side].pid, request: route.request, requests }, { ...options, duration: Number(values.duration) });
      if (r.errors || r.non2xx) throw new Error(`${side}: ${r.errors} errors, ${r.non2xx} non-2xx`);
      results[side].push(r);
      console.log(`round ${round + 1} ${side}: ${Math.round(r.requestsPerSecond)} req/s, ${Math.round(r.serverCpuMicrosPerRequest)} µs/req`);
    }
  }
  const summary = (side) => ({ rps: median(results[side].map((r) => r.requestsPerSecond)), cpu: median(results[side].map((r) => r.serverCpuMicrosPerRequest)) });
  const a = summary('A');
  const b = summary('B');
  console.log(`\n${values.route} on ${values.store}, ${values.rounds} rounds of ${values.duration} s, medians`);
  console.log(`A ${values['dist-a'] ?? ''}${JSON.stringify(sides.A)}: ${Math.round(a.rps)} req/s, ${Math.round(a.cpu)} µs/req`);
  console.log(`B ${JSON.stringify(sides.B)}: ${Math.round(b.rps)} req/s, ${Math.round(b.cpu)} µs/req`);
  console.log(`B ÷ A: req/s ${(b.rps / a.rps).toFixed(3)}, CPU per request ${(b.cpu / a.cpu).toFixed(3)}`);
} finally {
  await cleanup();
}
