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
//                    Side A then has its own database (a second scratch database on PostgreSQL), migrated, seeded and
//                    given its users and tokens by its own CLI, and runs from DIR's checkout (DIR/..): an older build
//                    has other migrations and finds its services, routes and config from its cwd. The ids side A's
//                    requests rotate over are read from side A.
//   --same-schema    (SQLite, with --dist-a) side A's database gets side B's tables, columns, indexes and triggers
//                    before the servers start, so that B ÷ A is the code's cost alone and not that of what later
//                    migrations made a write maintain. For the routes by key (get, put): A's lists are planned
//                    for A's own indexes, which this replaces (A's list took 3,357 µs a request on B's)
//   --rounds N       (default 6) · --duration S (default 8) · --warmup S (default 3) · --connections N (default 100)
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureBuilt, ensureInstalled } from './lib/setup.js';

ensureInstalled();
ensureBuilt();
const { runLoad } = await import('./lib/load.js');
const { canPin, killAll, pinSelf } = await import('./lib/processes.js');
const { median } = await import('./lib/report.js');
const { alignSchema, prepareRestlayer, scratchDatabase, startRestlayer } = await import('./lib/restlayer.js');

const { values } = parseArgs({
  options: {
    route: { type: 'string', default: 'put' },
    store: { type: 'string', default: 'sqlite' },
    'env-a': { type: 'string', default: '' },
    'env-b': { type: 'string', default: '' },
    'dist-a': { type: 'string' },
    'same-schema': { type: 'boolean', default: false },
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
const distA = values['dist-a'];
const scratch = values.store === 'postgres' ? await scratchDatabase('ab') : undefined;
const scratchA = values.store === 'postgres' && distA ? await scratchDatabase('ab_a') : undefined;
const postgresUrl = scratch?.url;
const servers = {};
const cleanup = async () => {
  // Stopped before their folder goes: a killed server's start promise reads its log.
  await Promise.all(Object.values(servers).map((server) => server.stop()));
  killAll();
  rmSync(work, { recursive: true, force: true });
  await scratch?.drop();
  await scratchA?.drop();
};
process.once('SIGINT', () => cleanup().finally(() => process.exit(130)));

try {
  const prepared = { B: await prepareRestlayer(work, { postgresUrl }) };
  if (distA) {
    const dirA = join(work, 'A');
    mkdirSync(dirA);
    prepared.A = await prepareRestlayer(dirA, { postgresUrl: scratchA?.url, cli: join(distA, 'bin', 'restlayer.js'), cwd: dirname(distA) });
  } else prepared.A = prepared.B;
  if (values['same-schema']) {
    if (!distA || scratch) throw new Error('--same-schema: SQLite with --dist-a only');
    console.log(`A's schema made B's: ${alignSchema(prepared.B.basePath, prepared.A.basePath).join(', ') || 'nothing differed'}`);
  }
  const json = (h) => ({ ...h, 'content-type': 'application/json' });
  const body = JSON.stringify({ status: 2, onlineOrderFlag: false });
  // Each side's requests carry its own tokens (and its own sales person): with --dist-a the sides' databases differ.
  const routesOf = (p) => {
    const auth = { authorization: `Bearer ${p.accessToken}` };
    const own = { authorization: `Bearer ${p.salesPersonToken}` };
    return {
      lookup: { request: { method: 'GET', path: '/lookup-table/operators', headers: auth } },
      list: { request: { method: 'GET', path: '/sales-order?take=50&status=5&sort[0].fieldName=orderDate&sort[0].sortDirection=Descending&getTotalCount=true', headers: auth } },
      get: { rotate: { method: 'GET', headers: auth }, auth },
      'get-own': { rotate: { method: 'GET', headers: own }, auth, ids: `salesPersonId=${p.salesPersonId}` },
      put: { rotate: { method: 'PUT', headers: json(auth), body }, auth },
      'put-own': { rotate: { method: 'PUT', headers: json(own), body }, auth, ids: `salesPersonId=${p.salesPersonId}` },
    };
  };
  const route = { A: routesOf(prepared.A)[values.route], B: routesOf(prepared.B)[values.route] };
  if (!route.B) throw new Error(`unknown route ${values.route}: use ${Object.keys(routesOf(prepared.B)).join(', ')}`);
  for (const [side, env] of Object.entries(sides)) servers[side] = await startRestlayer(prepared[side], `ab-${side}`, { cpus: pin ? '1' : undefined, env });
  const requests = {};
  for (const side of ['A', 'B']) {
    const r = route[side];
    if (!r.rotate) continue;
    // Read from the side that serves them: its own database's ids (the same list when both sides share one).
    const ids = (await (await fetch(`${servers[side].url}/sales-order?take=1000&${r.ids ?? 'skip=500'}`, { headers: r.auth })).json()).result.map((o) => o.salesOrderId);
    if (!ids.length) throw new Error(`${side}: no sales orders to rotate over`);
    console.log(`${side}: rotating over ${ids.length} orders, ids ${ids[0]}…${ids[ids.length - 1]}`);
    let next = 0;
    requests[side] = [{ ...r.rotate, setupRequest: (req) => ({ ...req, path: `/sales-order/${ids[next++ % ids.length]}` }) }];
  }
  const target = (side) => ({ url: servers[side].url, pid: servers[side].pid, request: route[side].request, requests: requests[side] });
  const options = { connections: Number(values.connections), pipelining: 1, timeout: 60 };
  const results = { A: [], B: [] };
  for (const side of ['A', 'B']) await runLoad(target(side), { ...options, duration: Number(values.warmup) });
  for (let round = 0; round < Number(values.rounds); round++) {
    // Alternate which side goes first, so neither always follows the other's load.
    for (const side of round % 2 ? ['B', 'A'] : ['A', 'B']) {
      const r = await runLoad(target(side), { ...options, duration: Number(values.duration) });
      if (r.errors || r.non2xx) throw new Error(`${side}: ${r.errors} errors, ${r.non2xx} non-2xx`);
      results[side].push(r);
      console.log(`round ${round + 1} ${side}: ${Math.round(r.requestsPerSecond)} req/s, ${Math.round(r.serverCpuMicrosPerRequest)} µs/req`);
    }
  }
  const summary = (side) => ({ rps: median(results[side].map((r) => r.requestsPerSecond)), cpu: median(results[side].map((r) => r.serverCpuMicrosPerRequest)) });
  const a = summary('A');
  const b = summary('B');
  console.log(`\n${values.route} on ${values.store}, ${values.rounds} rounds of ${values.duration} s, medians`);
  console.log(`A ${distA ?? ''}${JSON.stringify(sides.A)}: ${Math.round(a.rps)} req/s, ${Math.round(a.cpu)} µs/req`);
  console.log(`B ${JSON.stringify(sides.B)}: ${Math.round(b.rps)} req/s, ${Math.round(b.cpu)} µs/req`);
  console.log(`B ÷ A: req/s ${(b.rps / a.rps).toFixed(3)}, CPU per request ${(b.cpu / a.cpu).toFixed(3)}`);
} finally {
  await cleanup();
}
