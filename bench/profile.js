// `npm run bench:profile [-- options]`: restlayer under the benchmark's load with `node --cpu-prof`, one process per
// route, then bench/profile-summary.js over each profile. Summaries go to bench/results/profile-ROUTE.md.
//
//   --routes lookup,list     which routes (lookup, get, list, put, put-own, login; default lookup,list)
//   --store S                sqlite (default) or postgres (a scratch database, created and dropped)
//   --duration S             seconds of load (default 10, after a warm-up of --warmup S, default 3)
//   --connections N          (default 100)
//   --dir DIR                where the .cpuprofile files go (default /tmp/restlayer-prof)
//   --top N                  rows per table (default 15)
//   --no-pin                 do not pin runner and server to separate CPUs
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureBuilt, ensureInstalled, resultsDir } from './lib/setup.js';

ensureInstalled();
ensureBuilt();
const { runLoad } = await import('./lib/load.js');
const { canPin, killAll, pinSelf } = await import('./lib/processes.js');
const { benchPassword, benchUser, prepareRestlayer, scratchDatabase, startRestlayer } = await import('./lib/restlayer.js');
const { accumulate, emptyAccumulator, summaryMarkdown } = await import('./profile-summary.js');

const { values } = parseArgs({
  options: {
    routes: { type: 'string', default: 'lookup,list' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '100' },
    dir: { type: 'string', default: join(tmpdir(), 'restlayer-prof') },
    top: { type: 'string', default: '15' },
    'no-pin': { type: 'boolean', default: false },
    store: { type: 'string', default: 'sqlite' },
  },
});

const pin = !values['no-pin'] && cpus().length >= 2 && canPin();
if (pin) pinSelf('0');
const work = mkdtempSync(join(tmpdir(), 'restlayer-bench-'));
const scratch = values.store === 'postgres' ? await scratchDatabase('profile') : undefined;
const postgresUrl = scratch?.url;
const cleanup = async () => {
  killAll();
  rmSync(work, { recursive: true, force: true });
  await scratch?.drop();
};
process.once('SIGINT', () => cleanup().finally(() => process.exit(130)));

const listPath = '/sales-order?take=50&status=5&sort[0].fieldName=orderDate&sort[0].sortDirection=Descending';
const prepared = await prepareRestlayer(work, { postgresUrl });
const auth = { authorization: `Bearer ${prepared.accessToken}` };
const ownAuth = { authorization: `Bearer ${prepared.salesPersonToken}` };
/** Requests of `method` rotating over the ids `over` answers (of the sample's orders), with `headers`. */
const rotating = (method, headers, body) => (ids) => {
  let next = 0;
  return [{ method, headers, body, setupRequest: (req) => ({ ...req, path: `/sales-order/${ids[next++ % ids.length]}` }) }];
};
const putHeaders = (h) => ({ ...h, 'content-type': 'application/json' });
const putBody = JSON.stringify({ status: 2, onlineOrderFlag: false });
const routes = {
  lookup: { title: 'GET /lookup-table/operators (bearer)', request: { method: 'GET', path: '/lookup-table/operators', headers: auth } },
  list: { title: `GET ${listPath} (bearer)`, request: { method: 'GET', path: listPath, headers: auth } },
  get: { title: 'GET /sales-order/{id} (bearer, rotating over 1,000 ids)', requests: rotating('GET', auth) },
  put: { title: 'PUT /sales-order/{id} (bearer, rotating over 1,000 ids)', requests: rotating('PUT', putHeaders(auth), putBody) },
  'put-own': {
    title: 'PUT /sales-order/{id} as a SalesPerson (scope and audit on, rotating over their orders)',
    requests: rotating('PUT', putHeaders(ownAuth), putBody), ids: `salesPersonId=${prepared.salesPersonId}`,
  },
  login: {
    title: 'POST /auth/jwt',
    request: { method: 'POST', path: '/auth/jwt', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userName: benchUser, password: benchPassword }) },
  },
};

try {
  mkdirSync(resultsDir, { recursive: true });
  for (const name of values.routes.split(',').map((s) => s.trim())) {
    const route = routes[name];
    if (!route) throw new Error(`unknown route ${name}: use ${Object.keys(routes).join(', ')}`);
    const dir = join(values.dir, name);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const server = await startRestlayer(prepared, `profile-${name}`, {
      cpus: pin ? '1' : undefined,
      nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
    });
    let requests;
    if (route.requests) {
      const list = await (await fetch(`${server.url}/sales-order?take=1000&${route.ids ?? 'skip=500'}`, { headers: auth })).json();
      requests = route.requests(list.result.map((o) => o.salesOrderId));
    }
    const target = { url: server.url, pid: server.pid, request: route.request, requests };
    const options = { connections: Number(values.connections), pipelining: 1, timeout: 60 };
    if (Number(values.warmup) > 0) await runLoad(target, { ...options, duration: Number(values.warmup) });
    // The summary covers the measured window only (no startup, warm-up or connection ramp): the profile's samples
    // are on the same monotonic clock.
    const r = await runLoad(target, { ...options, duration: Number(values.duration) });
    const window = r.windowUs;
    await server.stop(120_000);
    const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(dir, f));
    if (!files.length) throw new Error(`${name}: no .cpuprofile written in ${dir}`);
    const acc = emptyAccumulator();
    for (const file of files) accumulate(JSON.parse(readFileSync(file, 'utf8')), acc, window);
    const heading = [
      `# CPU profile: restlayer ${route.title}${postgresUrl ? ' on PostgreSQL' : ''}`,
      '',
      `${new Date().toISOString()} · node --cpu-prof · ${values.connections} connections for ${values.warmup} s warm-up + ${values.duration} s ` +
        `(summarised: the samples of the measured window only, after the connection ramp, \`--from-us ${window.fromUs} --to-us ${window.toUs}\`) · ${pin ? 'server pinned to CPU 1, autocannon to CPU 0' : 'no pinning'}`,
      '',
      `Measured run: ${Math.round(r.requestsPerSecond)} req/s, p50 ${r.latencyMs.p50.toFixed(1)} ms, p99 ${r.latencyMs.p99.toFixed(1)} ms, ` +
        `server CPU ${Math.round(r.serverCpuMicrosPerRequest)} µs/request, errors ${r.errors}, non-2xx ${r.non2xx}. Profiling slows the server down; compare shares, not speeds.`,
      '',
      `Profile: ${files.join(', ')}`,
      '',
    ].join('\n');
    const md = heading + summaryMarkdown(acc, Number(values.top));
    const out = join(resultsDir, `profile-${name}${postgresUrl ? '-postgres' : ''}.md`);
    writeFileSync(out, md + '\n');
    console.log(md);
    console.log(`\nprofile: wrote ${out}\n`);
  }
} finally {
  await cleanup();
}
