// The benchmark: starts every server as its own process, checks they answer the same bytes, warms them up, then
// drives them in interleaved rounds (A, B, C, …, A, B, C, …) and reports medians and ratios to bare Koa.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runLoad } from './load.js';
import { canPin, cpuTicks, killAll, machineBusyTicks, pinSelf, startProcess, waitIdle } from './processes.js';
import { issueTargets, markdown, ratios, summarise, table, versusNest } from './report.js';
import { benchPassword, benchUser, prepareRestlayer, scratchDatabase, startRestlayer } from './restlayer.js';
import { copyDatabase } from './restlayer.js';
import { benchDir, nestMain, projectRoot, resultsDir } from './setup.js';

const usage = `npm run bench [-- options]

  --quick             smoke run: 3 s runs, 1 s warm-up, 2 rounds; writes results/quick.*.tmp
  --duration S        seconds per measured run (default 10)
  --warmup S          seconds of warm-up per target before the rounds (default 5)
  --rounds N          interleaved rounds, the median is reported (default 3, at least 2)
  --connections N     concurrent connections (default 100)
  --pipelining N      requests in flight per connection (default 1)
  --timeout S         autocannon request timeout (default 60: logins queue behind scrypt)
  --table T           lookup table the lookup targets serve: operators (16 rows, default) or sales-order-status (6)
  --only a,b          only these targets; a trailing * matches a prefix (nest-fastify-*); koa is always included
  --store S           sqlite (default: a file per process) or postgres (a scratch database, created and dropped)
  --no-pin            do not pin the runner and the servers to separate CPUs
  --out NAME          results/NAME.json and .md (default latest, or quick.*.tmp with --quick)
`;

const peerTargets = [
  { name: 'node-http', file: 'node-http.js', auth: false, description: 'raw node:http, URL split by hand, JSON.stringify per request (the ceiling)' },
  { name: 'koa', file: 'koa.js', auth: false, baseline: true, description: 'bare Koa 3 + @koa/router, no auth (the baseline of every ratio)' },
  { name: 'koa-jwt', file: 'koa.js', auth: true, description: 'Koa 3 + @koa/router + koa-jwt (HS256, issuer and audience checked; the key as a KeyObject, see peers/common.js)' },
  { name: 'express', file: 'express.js', auth: false, description: 'Express 5 with its defaults (res.json, so a weak ETag is computed per response)' },
  { name: 'express-jwt', file: 'express.js', auth: true, description: 'Express 5 + express-jwt (HS256, issuer and audience checked; the key as a KeyObject, see peers/common.js)' },
  { name: 'fastify', file: 'fastify.js', auth: false, description: 'Fastify 5, no response schema (JSON.stringify)' },
  { name: 'fastify-jwt', file: 'fastify.js', auth: true, description: 'Fastify 5 + @fastify/jwt in an onRequest hook (HS256, issuer and audience checked)' },
  {
    name: 'fastify-jwt-list', file: 'fastify-list.js', auth: true, kind: 'list', sqliteOnly: true,
    description: 'the list page hand-rolled: Fastify 5 + @fastify/jwt (onRequest hook) + better-sqlite3 prepared statements on its own copy of the file, the page and its count per request, pino on',
  },
];

const listPath = '/sales-order?take=50&status=5&sort[0].fieldName=orderDate&sort[0].sortDirection=Descending&getTotalCount=true';
const putBody = JSON.stringify({ status: 2, onlineOrderFlag: false });

// The NestJS peer (peers/nest/, issue 25): one process per adapter and workload, as restlayer runs one per workload.
const nestWorkloads = ['lookup', 'get', 'list', 'put'];
const nestAdapters = {
  fastify: 'NestJS 11 on @nestjs/platform-fastify',
  express: 'NestJS 11 on @nestjs/platform-express (Express 5 defaults: res.json, weak ETag)',
};
const nestDoes = 'global AuthGuard verifying the bearer token with @nestjs/jwt (HS256, issuer and audience checked), global ValidationPipe (class-validator, transform), logger at error/warn only';
const nestWork = {
  lookup: 'the table from memory (LookupController)',
  get: 'TypeORM query builder: `innerJoinAndSelect` of the customer, `getOne()` (one SELECT), mapped to restlayer\'s read output',
  list: 'TypeORM query builder: the page with `innerJoin` of the customer, status filter, orderDate then id descending, LIMIT 50, and `countBy({ status })` on every request (2 queries; no count cache)',
  put: 'body through the ValidationPipe (class-validator DTO), `findOne` of the revision and order date, status checked against the active statuses read at start, `update` with the revision read in the WHERE (`revision_number + 1`): 2 queries',
};


function options() {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      rounds: { type: 'string' },
      connections: { type: 'string', default: '100' },
      pipelining: { type: 'string', default: '1' },
      timeout: { type: 'string', default: '60' },
      table: { type: 'string', default: 'operators' },
      only: { type: 'string' },
      store: { type: 'string', default: 'sqlite' },
      'no-pin': { type: 'boolean', default: false },
      out: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(usage);
    process.exit(0);
  }
  const number = (name, fallback, min = 1) => {
    const n = Number(values[name] ?? fallback);
    if (!Number.isFinite(n) || n < min) throw new Error(`--${name} must be a number ≥ ${min}`);
    return n;
  };
  if (!['operators', 'sales-order-status'].includes(values.table)) throw new Error('--table must be operators or sales-order-status');
  if (!['sqlite', 'postgres'].includes(values.store)) throw new Error('--store must be sqlite or postgres');
  return {
    mode: values.quick ? 'quick' : 'full',
    duration: number('duration', values.quick ? 3 : 10),
    warmup: number('warmup', values.quick ? 1 : 5, 0),
    rounds: number('rounds', values.quick ? 2 : 3, 2),
    connections: number('connections', 100),
    pipelining: number('pipelining', 1),
    timeout: number('timeout', 60),
    table: values.table,
    only: values.only ? values.only.split(',').map((s) => s.trim()).filter(Boolean).concat('koa') : undefined,
    store: values.store,
    pin: !values['no-pin'],
    out: values.out ?? (values.quick ? 'quick' : 'latest'),
  };
}

const version = (pkg) => JSON.parse(readFileSync(join(benchDir, 'node_modules', pkg, 'package.json'), 'utf8')).version;
const git = (...args) => execFileSync('git', args, { cwd: projectRoot, encoding: 'utf8' }).trim();
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

async function fetchChecked(url, init, what) {
  const response = await fetch(url, init);
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200) throw new Error(`${what}: ${url} answered ${response.status}: ${body.toString().slice(0, 300)}`);
  return { response, body };
}

export async function main() {
  const o = options();
  const started = Date.now();
  const loadAverageAtStart = loadavg().map((l) => Number(l.toFixed(2)));
  // Two cores: the load generator gets one, the server under test the other, so they do not compete.
  const pinnable = o.pin && cpus().length >= 2 && canPin();
  const loadCpu = '0';
  const serverCpus = pinnable ? '1' : undefined;
  if (pinnable) pinSelf(loadCpu);
  const pinning = pinnable
    ? `runner and autocannon pinned to CPU ${loadCpu}, each server process (all its threads) to CPU ${serverCpus} (taskset)`
    : 'no CPU pinning: the load generator and the server share the CPUs';

  // How busy the machine is without us: other processes compete with both the server and the load generator.
  const quiet = { machine: machineBusyTicks(), self: cpuTicks(process.pid) };
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const otherLoadAtStart = Math.max(0, (machineBusyTicks() - quiet.machine - (cpuTicks(process.pid) - quiet.self)) / 200);
  if (otherLoadAtStart > 0.25) console.warn(`bench: other processes are using ${otherLoadAtStart.toFixed(2)} of ${cpus().length} CPUs: figures will be noisy (see the CPU column)`);

  const dir = mkdtempSync(join(tmpdir(), 'restlayer-bench-'));
  const servers = [];
  // PostgreSQL: every server of the run reads the same scratch database, seeded from the sample by restlayer's CLI.
  const scratch = o.store === 'postgres' ? await scratchDatabase('bench') : undefined;
  const postgresUrl = scratch?.url;
  const cleanup = async () => {
    killAll();
    rmSync(dir, { recursive: true, force: true });
    await scratch?.drop();
  };
  process.once('SIGINT', () => {
    cleanup().finally(() => process.exit(130));
  });

  try {
    console.log(`bench: ${o.mode} run · ${o.store} · ${o.connections} connections · ${o.duration} s × ${o.rounds} rounds · warm-up ${o.warmup} s · ${pinning}`);
    console.log('bench: preparing restlayer (seeded database, bench user, token)');
    const prepared = await prepareRestlayer(dir, { postgresUrl });
    const auth = { authorization: `Bearer ${prepared.accessToken}` };

    const wanted = (name) => !o.only || o.only.some((w) => (w.endsWith('*') ? name.startsWith(w.slice(0, -1)) : name === w));
    // The *-own targets are the same workloads with every feature on (issue 25): a SalesPerson caller, so the permission
    // check passes through a scoped grant and the record scope applies to the read, the list and the write (the PUT
    // records its audit entry either way).
    const restlayerNames = ['restlayer-lookup', 'restlayer-get', 'restlayer-list', 'restlayer-put', 'restlayer-get-own', 'restlayer-list-own', 'restlayer-put-own', 'restlayer-login'];
    const rl = {};
    // One more instance, never measured, answers the bench's own requests (the payloads, the ids, the reference
    // answers): a list read starts SQLite reader processes, whose memory would otherwise count in the peak RSS of
    // whichever target had answered it (the lookup's went from ~150 MB to ~200 MB).
    rl.reference = await startRestlayer(prepared, 'restlayer-reference', { cpus: serverCpus });
    servers.push(rl.reference);
    for (const name of restlayerNames.filter(wanted)) {
      rl[name] = await startRestlayer(prepared, name, { cpus: serverCpus });
      servers.push(rl[name]);
    }

    // The payloads, fetched once from restlayer itself, so the peers answer the very same bytes.
    const payloads = {};
    let expected;
    for (const type of ['operators', 'sales-order-status']) {
      const { body } = await fetchChecked(`${rl.reference.url}/lookup-table/${type}`, { headers: auth }, 'payload');
      payloads[type] = JSON.parse(body.toString('utf8'));
      if (type === o.table) expected = body;
    }
    const payloadsFile = join(dir, 'payloads.json');
    writeFileSync(payloadsFile, JSON.stringify(payloads));

    // The orders that GET and PUT rotate over: 1,000 of the sample's, in id order.
    const { body: idsBody } = await fetchChecked(`${rl.reference.url}/sales-order?take=1000&skip=500`, { headers: auth }, 'ids');
    const ids = JSON.parse(idsBody.toString('utf8')).result.map((r) => r.salesOrderId);
    // The scoped caller's: up to 1,000 orders of their sales person.
    const ownAuth = { authorization: `Bearer ${prepared.salesPersonToken}` };
    const { body: ownBody } = await fetchChecked(`${rl.reference.url}/sales-order?take=1000&salesPersonId=${prepared.salesPersonId}`, { headers: auth }, 'own ids');
    const ownIds = JSON.parse(ownBody.toString('utf8')).result.map((r) => r.salesOrderId);

    const peers = {};
    for (const peer of peerTargets.filter((p) => wanted(p.name) && !(p.sqliteOnly && postgresUrl))) {
      peers[peer.name] = await startProcess({
        name: peer.name,
        nodeArgs: [join(benchDir, 'peers', peer.file)],
        env: {
          PATH: process.env.PATH,
          NODE_ENV: 'production',
          PAYLOADS_FILE: payloadsFile,
          AUTH: peer.auth ? 'jwt' : 'none',
          JWT_KEY: prepared.keys.signing,
          JWT_ISSUER: 'restlayer',
          JWT_AUDIENCE: 'restlayer',
          // The peer with a logger of its own (Fastify's pino) logs every request, as restlayer does.
          LOG_FILE: join(dir, `${peer.name}.log`),
          ...(peer.kind === 'list' ? { DATABASE_PATH: copyDatabase(prepared, peer.name) } : {}),
        },
        cwd: benchDir,
        cpus: serverCpus,
        ready: /peer is serving (http:\/\/\S+)/,
      });
      servers.push(peers[peer.name]);
    }

    const nestTargets = [];
    for (const adapter of Object.keys(nestAdapters)) {
      for (const workload of nestWorkloads) {
        const name = `nest-${adapter}-${workload}`;
        if (!wanted(name)) continue;
        nestTargets.push(name);
        peers[name] = await startProcess({
          name,
          nodeArgs: [nestMain],
          env: {
            PATH: process.env.PATH,
            NODE_ENV: 'production',
            ADAPTER: adapter,
            STORE: o.store,
            // SQLite: its own copy of the seeded file, as each restlayer process has; PostgreSQL: the run's database.
            ...(postgresUrl ? { DATABASE_URL: postgresUrl } : { DATABASE_PATH: copyDatabase(prepared, name) }),
            PAYLOADS_FILE: payloadsFile,
            JWT_KEY: prepared.keys.signing,
            JWT_ISSUER: 'restlayer',
            JWT_AUDIENCE: 'restlayer',
          },
          cwd: benchDir,
          cpus: serverCpus,
          ready: /peer is serving (http:\/\/\S+)/,
        });
        servers.push(peers[name]);
      }
    }

    // The targets, in the order each round runs them.
    const lookupPath = `/lookup-table/${o.table}`;
    const lookupRequest = { method: 'GET', path: lookupPath, headers: auth };
    // One request of each workload: `load` for autocannon (GET and PUT rotate over the ids), `check` for the answer check.
    const workload = {
      lookup: () => ({ load: { request: lookupRequest }, check: { method: 'GET', path: lookupPath } }),
      get: (headers = auth, over = ids) => {
        let next = 0;
        return {
          load: { requests: [{ method: 'GET', headers, setupRequest: (req) => ({ ...req, path: `/sales-order/${over[next++ % over.length]}` }) }] },
          check: { method: 'GET', path: `/sales-order/${over[0]}`, headers },
        };
      },
      list: (headers = auth) => ({ load: { request: { method: 'GET', path: listPath, headers } }, check: { method: 'GET', path: listPath, headers } }),
      put: (headers = auth, over = ids) => {
        let next = 0;
        const sent = { ...headers, 'content-type': 'application/json' };
        return {
          load: { requests: [{ method: 'PUT', headers: sent, body: putBody, setupRequest: (req) => ({ ...req, path: `/sales-order/${over[next++ % over.length]}` }) }] },
          check: { method: 'PUT', path: `/sales-order/${over[0]}`, headers: sent, body: putBody },
        };
      },
    };
    const storeName = o.store === 'postgres' ? 'PostgreSQL (one scratch database for every server)' : 'SQLite (a copy of the file per process)';
    const targets = [];
    for (const peer of peerTargets.filter((p) => peers[p.name])) {
      const kind = peer.kind ?? 'lookup';
      const request = kind === 'list' ? 'GET /sales-order?take=50&status=5&sort by orderDate desc&getTotalCount=true (bearer)' : `GET ${lookupPath}`;
      targets.push({ ...peer, server: peers[peer.name], request, kind, ...workload[kind]() });
    }
    for (const name of nestTargets) {
      const [, adapter, kind] = name.split('-');
      const request = { lookup: `GET ${lookupPath} (bearer)`, get: `GET /sales-order/{id} (bearer, ${ids.length} ids in turn)`, list: 'GET /sales-order?take=50&status=5&sort by orderDate desc&getTotalCount=true (bearer)', put: `PUT /sales-order/{id} (bearer, ${ids.length} ids in turn)` }[kind];
      targets.push({
        name, server: peers[name], request, kind,
        description: `${nestAdapters[adapter]}, ${nestDoes}; TypeORM 0.3 on ${storeName}: ${nestWork[kind]}`,
        ...workload[kind](),
      });
    }
    if (wanted('restlayer-lookup')) {
      targets.push({
        name: 'restlayer-lookup', server: rl['restlayer-lookup'], request: `GET ${lookupPath} (bearer)`,
        description: 'restlayer, NODE_ENV=production, request log at info (to a file): the full chain (front door: request id, security headers, error boundary, request log; query limit; cookie-session bypass for bearer calls; router; caller gate: koa-jwt with the verified-token cache and the session check; envelope runner with the error scope and timeout)',
        kind: 'lookup', ...workload.lookup(),
      });
    }
    if (rl['restlayer-get']) {
      targets.push({
        name: 'restlayer-get', server: rl['restlayer-get'], request: `GET /sales-order/{id} (bearer, ${ids.length} ids in turn)`,
        description: `restlayer read: \`GET /sales-order/{id}\` (the order with its customer's name, one join query), ids rotating over ${ids.length} orders on ${storeName}`,
        kind: 'get', ...workload.get(),
      });
    }
    if (rl['restlayer-list']) {
      targets.push({
        name: 'restlayer-list', server: rl['restlayer-list'], request: 'GET /sales-order?take=50&status=5&sort by orderDate desc&getTotalCount=true (bearer)',
        description: `restlayer list route: \`GET ${listPath}\` over the 12,000 sample orders on ${storeName} (page and total count; restlayer keeps exact counts in its count cache until the table changes)`,
        kind: 'list', ...workload.list(),
      });
    }
    if (rl['restlayer-put']) {
      targets.push({
        name: 'restlayer-put', server: rl['restlayer-put'], request: `PUT /sales-order/{id} (bearer, ${ids.length} ids in turn)`,
        description: `restlayer update: \`PUT /sales-order/{id}\` with \`${putBody}\` (no revisionNumber: the revision check is the \`revision_number\` in the UPDATE's WHERE when one is sent), ids rotating over ${ids.length} orders; ${o.store === 'postgres' ? 'PostgreSQL' : `SQLite WAL with synchronous=FULL on ${tmpdir()}`}`,
        kind: 'put', ...workload.put(),
      });
    }
    const own = `as a SalesPerson (grants \`sales-order.read:own\`, \`sales-order.update:own\`; attribute salesPersonId ${prepared.salesPersonId}), so the record scope applies`;
    for (const kind of ['get', 'list', 'put']) {
      const name = `restlayer-${kind}-own`;
      if (!rl[name]) continue;
      const plain = targets.find((t) => t.name === `restlayer-${kind}`);
      targets.push({
        name, server: rl[name], kind, own: true,
        request: { get: `GET /sales-order/{id} (SalesPerson, ${ownIds.length} own ids in turn)`, list: 'GET /sales-order?take=50&status=5&sort by orderDate desc&getTotalCount=true (SalesPerson)', put: `PUT /sales-order/{id} (SalesPerson, ${ownIds.length} own ids in turn)` }[kind],
        description: `${plain ? `\`restlayer-${kind}\`` : `restlayer's ${kind}`} with every feature on: ${own}${kind === 'list' ? ' (their orders of status 5: a different page than the others answer)' : kind === 'get' ? ' (the order read through the scope)' : ' (the lock, the write and its scope check through the scope; the audit entry as always)'}`,
        ...workload[kind](ownAuth, ownIds),
      });
    }
    if (rl['restlayer-login']) {
      targets.push({
        name: 'restlayer-login', server: rl['restlayer-login'], request: 'POST /auth/jwt',
        description: 'restlayer login: `POST /auth/jwt` (scrypt N=2^15, r=8: 32 MiB and ~0.1 s of CPU per login, on the libuv pool), answering a token pair',
        kind: 'login',
        load: {
          request: {
            method: 'POST', path: '/auth/jwt', headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ userName: benchUser, password: benchPassword }),
          },
        },
        check: { method: 'POST', path: '/auth/jwt', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userName: benchUser, password: benchPassword }) },
      });
    }
    for (const t of targets) t.load.url = t.server.url.replace(/\/$/, '');

    // Every lookup, read and list target must answer the same bytes as restlayer (reads first: the PUT checks write);
    // every PUT target must answer a new revision and its time.
    const reference = {};
    for (const kind of ['get', 'list']) {
      const { check } = workload[kind]();
      reference[kind] = (await fetchChecked(rl.reference.url + check.path, { headers: auth }, `${kind} reference`)).body;
    }
    reference.lookup = expected;
    const ordered = [...targets].sort((a, b) => (a.kind === 'put' || a.kind === 'login') - (b.kind === 'put' || b.kind === 'login'));
    for (const t of ordered) {
      const { method, path, headers = auth, body: sent } = t.check;
      const { response, body } = await fetchChecked(t.load.url + path, { method, headers, body: sent }, t.name);
      if (t.own && t.kind !== 'put') {
        const { result } = JSON.parse(body.toString('utf8'));
        const rows = Array.isArray(result) ? result : [result];
        if (!rows.length || rows.some((r) => r.salesOrderId == null || r.salesPersonId !== prepared.salesPersonId)) throw new Error(`${t.name} answers orders of other sales people:\n${body.toString().slice(0, 2000)}`);
      } else if (reference[t.kind] && !body.equals(reference[t.kind])) throw new Error(`${t.name} does not answer \`${method} ${path}\` with the same bytes as restlayer:\n${body.toString().slice(0, 2000)}\n${reference[t.kind].toString().slice(0, 2000)}`);
      if (t.kind === 'put') {
        const keys = Object.keys(JSON.parse(body.toString('utf8')).result ?? {}).join();
        if (keys !== 'revisionNumber,modifiedDate') throw new Error(`${t.name} answers the PUT with ${body}`);
      }
      if (!/^application\/json/.test(response.headers.get('content-type') ?? '')) throw new Error(`${t.name} answers ${response.headers.get('content-type')}`);
    }
    console.log(`bench: ${targets.length} servers up on ${o.store}, lookup payload ${expected.length} bytes; lookups, reads (${reference.get.length} bytes) and list pages (${reference.list.length} bytes) identical on every target`);

    const drive = async (t, duration) => {
      const result = await runLoad({ url: t.load.url, pid: t.server.pid, ...t.load }, {
        duration, connections: o.connections, pipelining: o.pipelining, timeout: o.timeout,
      });
      // Requests the generator abandoned (logins queued behind scrypt) must not run into the next target's turn.
      const idleMs = await waitIdle(t.server.pid);
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { ...result, idleWaitMs: idleMs };
    };

    if (o.warmup > 0) {
      console.log(`bench: warm-up, ${o.warmup} s each`);
      for (const t of targets) {
        const r = await drive(t, o.warmup);
        console.log(`  warm-up ${t.name.padEnd(17)} ${Math.round(r.requestsPerSecond).toString().padStart(7)} req/s`);
      }
    }

    for (const t of targets) t.rounds = [];
    for (let round = 1; round <= o.rounds; round++) {
      console.log(`bench: round ${round}/${o.rounds}`);
      for (const t of targets) {
        const r = await drive(t, o.duration);
        t.rounds.push(r);
        const problems = r.errors || r.non2xx ? `  errors ${r.errors} non-2xx ${r.non2xx} ${JSON.stringify(r.statusCodes)}` : '';
        console.log(`  ${t.name.padEnd(17)} ${Math.round(r.requestsPerSecond).toString().padStart(7)} req/s  p50 ${r.latencyMs.p50.toFixed(2).padStart(7)} ms  ` +
          `p99 ${r.latencyMs.p99.toFixed(2).padStart(8)} ms  peak RSS ${(r.peakRssBytes / 2 ** 20).toFixed(0).padStart(4)} MB  ramp ${Number.isFinite(r.rampS) ? r.rampS.toFixed(1) + ' s' : r.connectionsAdmitted + ' conn.'}  CPU ${r.cpuCores.server.toFixed(2)}/${r.cpuCores.loadGenerator.toFixed(2)}/${r.cpuCores.otherProcesses.toFixed(2)}${problems}` +
          (r.idleWaitMs > 1000 ? `  (server busy ${seconds(r.idleWaitMs)} after the run)` : ''));
      }
    }

    const baseline = targets.find((t) => t.baseline);
    for (const t of targets) t.summary = summarise(t.rounds);
    for (const t of targets) t.ratio = ratios(t.summary, baseline.summary);
    const byName = new Map(targets.map((t) => [t.name, t]));

    const report = {
      mode: o.mode,
      startedAt: new Date(started).toISOString(),
      finishedAt: new Date().toISOString(),
      wallClockSeconds: Math.round((Date.now() - started) / 1000),
      store: o.store,
      options: { duration: o.duration, warmup: o.warmup, rounds: o.rounds, connections: o.connections, pipelining: o.pipelining, timeout: o.timeout, table: o.table },
      pinning,
      machine: {
        cpus: cpus().length, cpuModel: cpus()[0]?.model, memoryGB: Math.round(totalmem() / 2 ** 30), freeMemoryGB: Math.round(freemem() / 2 ** 30),
        loadAverageAtStart, otherLoadAtStartCores: Number(otherLoadAtStart.toFixed(2)), node: process.versions.node, platform: `${process.platform} ${process.arch}`,
      },
      restlayer: { commit: git('rev-parse', '--short', 'HEAD'), dirty: git('status', '--porcelain', '--', '.', ':!bench').length > 0 },
      versions: Object.fromEntries(['autocannon', 'koa', '@koa/router', 'koa-jwt', 'express', 'express-jwt', 'fastify', '@fastify/jwt', 'jsonwebtoken', '@nestjs/core', '@nestjs/platform-fastify', '@nestjs/platform-express', '@nestjs/jwt', 'typeorm', 'class-validator', 'better-sqlite3', 'pg'].map((p) => [p, version(p)])),
      payloadBytes: expected.length,
      issueTargets: issueTargets(byName),
      versusNest: versusNest(byName),
      targets: targets.map((t) => ({
        name: t.name, baseline: !!t.baseline, request: t.request, description: t.description,
        summary: t.summary, ratio: t.ratio, rounds: t.rounds,
      })),
    };

    console.log('');
    console.log(table(report.targets));
    console.log('');
    for (const c of report.issueTargets) console.log(`${c.met ? 'met    ' : 'NOT met'}  ${c.target}: ${c.value}`);
    for (const c of report.versusNest) console.log(`vs ${c.peer}: ${c.value}`);

    mkdirSync(resultsDir, { recursive: true });
    const suffix = o.out === 'quick' ? '.tmp' : '';
    const jsonPath = join(resultsDir, `${o.out}.json${suffix}`);
    const mdPath = join(resultsDir, `${o.out}.md${suffix}`);
    writeFileSync(jsonPath, JSON.stringify(report, null, 2) + '\n');
    writeFileSync(mdPath, markdown(report));
    console.log(`\nbench: wrote ${jsonPath} and ${mdPath} (${seconds(Date.now() - started)})`);

    for (const s of servers) {
      const exit = await s.stop();
      if (exit.code && exit.code !== 0) console.warn(`bench: ${s.name} exited with ${exit.code}\n${s.stderr()}`);
    }
  } finally {
    await cleanup();
  }
}
