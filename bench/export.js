// `node bench/export.js [--store sqlite|postgres] [--orders 100000] [--clients 4] [--rounds 2] [--json-first]` (build
// first): what a CSV export of every order costs the server (issue 41, contract part 15). One restlayer process (SQLite
// in a temp folder, or a scratch PostgreSQL database created and dropped here) whose sample is grown to --orders (as
// bench/scale.js grows it) answers GET /sales-order with Accept: text/csv, RestAPI:MaxExportRows = --orders, while
// --clients loops send cheap requests one after another (GET /sales-order/{id} over the first 1,000 ids and GET
// /health/live, in turn), first with the server idle, then during --rounds exports. Measures the server's RSS (its
// process and its SQLite reader processes) sampled every 20 ms during each export against before it, and the cheap
// requests' p50/p99 idle and during. With --json-first, the same rows are first read as JSON pages of 500 by cursor
// (what a client paging through the list does), measured the same way, so that the exports after it show what an
// export costs a server that has already served that much, apart from what any first large read costs a fresh one.
// Writes bench/results/export-STORE.json and .md (with --json-first: export-STORE-after-json.*).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { killAll, memoryOf, processTree, startProcess, treeRss } from './lib/processes.js';
import { copyDatabase, prepareRestlayer, restlayerEnv, scratchDatabase } from './lib/restlayer.js';
import { growDatabase } from './lib/grow.js';
import { cliPath, projectRoot, resultsDir } from './lib/setup.js';

const { values: opts } = parseArgs({
  options: { orders: { type: 'string', default: '100000' }, 'max-rows': { type: 'string', default: '1000' }, clients: { type: 'string', default: '4' }, rounds: { type: 'string', default: '2' }, store: { type: 'string', default: 'sqlite' }, 'json-first': { type: 'boolean', default: false } },
});
const orders = Number(opts.orders);

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const round = (x, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;
const summary = (ms) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return { n: sorted.length, p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)), max: round(sorted.at(-1)) };
};
const mb = (bytes) => round(bytes / 1024 / 1024, 1);


/** `clients` loops of cheap requests until `done()`; the latencies in ms. */
async function cheapLoad(url, token, ids, clients, done) {
  const latencies = [];
  await Promise.all(Array.from({ length: clients }, async (_, client) => {
    for (let i = client; !done(); i++) {
      const path = i % 2 ? '/health/live' : `/sales-order/${ids[i % ids.length]}`;
      const started = performance.now();
      const res = await fetch(url + path, { headers: { Authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
      latencies.push(performance.now() - started);
    }
  }));
  return latencies;
}

/** Runs `read` while sampling the server's RSS (its process and its reader processes) every 20 ms: the peaks. */
async function sampled(pid, read) {
  let peak = treeRss(pid);
  let mainPeak = memoryOf(pid).rss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, treeRss(pid));
    mainPeak = Math.max(mainPeak, memoryOf(pid).rss);
  }, 20);
  const started = performance.now();
  try {
    return { ...await read(), seconds: round((performance.now() - started) / 1000), peakRss: peak, mainPeakRss: mainPeak };
  } finally {
    clearInterval(sampler);
  }
}

/** One export, read as it streams (nothing kept but counts). */
async function exportAll(url, token) {
  const res = await fetch(`${url}/sales-order`, { headers: { Authorization: `Bearer ${token}`, Accept: 'text/csv' } });
  if (res.status !== 200) throw new Error(`the export answered ${res.status}: ${await res.text()}`);
  let bytes = 0;
  let records = 0;
  for await (const chunk of res.body) {
    bytes += chunk.length;
    for (const byte of chunk) if (byte === 10) records++;
  }
  return { kind: 'CSV export', rows: records - 1, totalCount: Number(res.headers.get('x-total-count')), bytes };
}

/** The same rows as JSON pages of 500 by cursor, as a client paging through the list reads them. */
async function pageAll(url, token) {
  let rows = 0;
  let bytes = 0;
  let cursor = '';
  while (rows < orders) {
    const res = await fetch(`${url}/sales-order?take=500&cursor=${encodeURIComponent(cursor)}`, { headers: { Authorization: `Bearer ${token}` } });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`a page answered ${res.status}: ${text}`);
    const page = JSON.parse(text);
    rows += page.result.length;
    bytes += text.length;
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  return { kind: 'JSON pages', rows, bytes };
}

const store = opts.store;
if (!['sqlite', 'postgres'].includes(store)) throw new Error(`--store is sqlite or postgres, not ${store}`);
const storeName = store === 'sqlite' ? 'SQLite' : 'PostgreSQL';
const resultName = `export-${store}${opts['json-first'] ? '-after-json' : ''}`;
const dir = mkdtempSync(join(tmpdir(), 'restlayer-export-'));
const scratch = store === 'postgres' ? await scratchDatabase('export') : undefined;
try {
  const prepared = await prepareRestlayer(dir, { postgresUrl: scratch?.url });
  const dbPath = scratch ? undefined : copyDatabase(prepared, 'export');
  const env = { ...restlayerEnv(prepared.keys, dbPath, scratch?.url), RestAPI__MaxExportRows: String(orders), RestAPI__MaxRows: opts['max-rows'], Log__Level: 'warn' };
  const grown = await growDatabase(env, orders);
  const server = await startProcess({
    name: 'export', nodeArgs: [cliPath, 'serve', '--port', '0', '--host', '127.0.0.1'], env, cwd: projectRoot,
    stderrFile: join(dir, 'export.log'), ready: /restlayer is serving (http:\/\/\S+)/,
  });
  try {
    const token = prepared.accessToken;
    const list = await (await fetch(`${server.url}/sales-order?take=1000`, { headers: { Authorization: `Bearer ${token}` } })).json();
    const ids = list.result.map((o) => o.salesOrderId);
    const clients = Number(opts.clients);
    let warm = 0;
    await cheapLoad(server.url, token, ids, clients, () => warm++ >= 400);
    // Lists too slow for the server's main thread start its SQLite reader processes (their RSS is the server's too),
    // so that they run before the idle measure and no round is charged with starting one: deep offset pages, two at a
    // time, until both readers (Storage:Sqlite:ReadWorkers' default) are there.
    for (let tries = 0; store === 'sqlite' && processTree(server.pid).length < 3 && tries < 20; tries++) {
      await Promise.all([0.9, 0.8].map((depth) => fetch(`${server.url}/sales-order?take=50&skip=${Math.floor(grown * depth)}`, { headers: { Authorization: `Bearer ${token}` } }).then((res) => res.arrayBuffer())));
    }
    const idleUntil = performance.now() + 3_000;
    const idle = await cheapLoad(server.url, token, ids, clients, () => performance.now() > idleUntil);
    const rounds = [];
    const during = [];
    const reads = [...(opts['json-first'] ? [pageAll] : []), ...Array.from({ length: Number(opts.rounds) }, () => exportAll)];
    for (const read of reads) {
      const before = treeRss(server.pid);
      const mainBefore = memoryOf(server.pid).rss;
      const processesBefore = processTree(server.pid).length;
      let finished = false;
      const reading = sampled(server.pid, () => read(server.url, token)).finally(() => {
        finished = true;
      });
      const latencies = await cheapLoad(server.url, token, ids, clients, () => finished);
      const done = await reading;
      if (read === exportAll) during.push(...latencies);
      rounds.push({ ...done, rssBeforeMb: mb(before), rssPeakMb: mb(done.peakRss), rssGrowthMb: mb(done.peakRss - before), peakRss: undefined,
        mainRssBeforeMb: mb(mainBefore), mainRssGrowthMb: mb(done.mainPeakRss - mainBefore), mainPeakRss: undefined,
        processes: `${processesBefore} → ${processTree(server.pid).length}` });
    }
    const result = {
      orders: grown, clients, idle: summary(idle), duringExport: summary(during), rounds,
    };
    result.p99Ratio = round(result.duringExport.p99 / result.idle.p99);
    const exports = rounds.filter((r) => r.kind === 'CSV export');
    result.maxRssGrowthMb = Math.max(...exports.map((r) => r.rssGrowthMb));
    const json = JSON.stringify(result, null, 2);
    console.log(json);
    writeFileSync(join(resultsDir, `${resultName}.json`), `${json}\n`);
    writeFileSync(join(resultsDir, `${resultName}.md`), [
      `# CSV export of every order (issue 41, bench/export.js --store ${store}${opts['json-first'] ? ' --json-first' : ''}, ${storeName})`, '',
      `${grown.toLocaleString('en')} orders; GET /sales-order with Accept: text/csv (RestAPI:MaxExportRows ${orders.toLocaleString('en')}), ${clients} clients `
        + 'sending GET /sales-order/{id} and GET /health/live one after another, idle and during each export.', '',
      `| round | read | rows | MB sent | seconds | processes | server RSS before${store === 'sqlite' ? ' (with its SQLite readers)' : ''} | peak during | growth | main process before | its growth |`,
      '|---|---|---|---|---|---|---|---|---|---|---|',
      ...rounds.map((r, i) => `| ${i + 1} | ${r.kind} | ${r.rows.toLocaleString('en')} | ${mb(r.bytes)} | ${r.seconds} | ${r.processes} | ${r.rssBeforeMb} MB | ${r.rssPeakMb} MB | ${r.rssGrowthMb} MB | ${r.mainRssBeforeMb} MB | ${r.mainRssGrowthMb} MB |`), '',
      '| cheap requests | n | p50 ms | p99 ms | max ms |', '|---|---|---|---|---|',
      `| idle | ${result.idle.n} | ${result.idle.p50} | ${result.idle.p99} | ${result.idle.max} |`,
      `| during the exports | ${result.duringExport.n} | ${result.duringExport.p50} | ${result.duringExport.p99} | ${result.duringExport.max} |`, '',
      `p99 during / idle: ${result.p99Ratio} (bound: 2). Largest RSS growth of an export: ${result.maxRssGrowthMb} MB (bound: 50 MB).`, '',
      ...(store === 'sqlite' ? ['The server is one process plus SQLite reader processes, started before the measures (processes: before → after).'] : []),
      'The first large read of a fresh server, JSON pages or an export alike, grows its heaps to their working size once; what the server',
      'keeps does not grow with the rows (test/scale/csv-export-memory.test.ts measures the heap kept after each 5,000 rows).', '',
    ].join('\n'));
  } finally {
    await server.stop();
  }
} finally {
  killAll();
  rmSync(dir, { recursive: true, force: true });
  await scratch?.drop();
}
