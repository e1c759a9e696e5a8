// `node bench/stall.js [--count N] [--clients N] [--rounds N]` (build first): what a slow read does to cheap requests
// of the same process (issue 15). One restlayer process over SQLite serves GET /stall/slow, a recursive CTE counting to
// --count (about 3 s on one core) read through `storage.reader`, besides its usual routes. --clients loops send cheap
// requests one after another (GET /health/live and GET /lookup-table/operators with a bearer token, in turn), first
// with the server idle, then during --rounds slow reads. Twice: with Storage:Sqlite:ReadWorkers=0 (the reader is the
// main connection: the query runs on the event loop, as before issue 15) and with 2 reader processes. Prints JSON.
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { killAll, startProcess } from './lib/processes.js';
import { copyDatabase, prepareRestlayer, restlayerEnv } from './lib/restlayer.js';
import { benchDir, projectRoot } from './lib/setup.js';

const { values: opts } = parseArgs({
  options: { count: { type: 'string', default: '25000000' }, clients: { type: 'string', default: '4' }, rounds: { type: 'string', default: '3' } },
});
const dir = mkdtempSync(join(tmpdir(), 'restlayer-stall-'));
const built = (path) => pathToFileURL(join(projectRoot, 'dist', path)).href;
const kysely = pathToFileURL(join(projectRoot, 'node_modules', 'kysely', 'dist', 'esm', 'index.js')).href;
mkdirSync(join(dir, 'routes', 'stall'), { recursive: true });
writeFileSync(join(dir, 'routes', 'stall', 'slow.js'), `
import { sql } from '${kysely}';
import { route } from '${built('lib/routing/route.js')}';
import { Output } from '${built('lib/envelope/output.js')}';
export const GET = route({
  summary: 'A slow read through storage.reader.',
  anonymous: true,
  handle: async ({ services }) => Output.of((await sql\`with recursive c(x) as (select 1 union all select x + 1 from c where x < ${Number(opts.count)}) select count(*) as n from c\`.execute(services.stallStorage.reader)).rows),
});
`);

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const summary = (ms) => {
  const sorted = [...ms].sort((a, b) => a - b);
  const round = (x) => Math.round(x * 100) / 100;
  return { n: sorted.length, p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)), max: round(sorted.at(-1)) };
};

/** `clients` loops of cheap requests until `done()`; the latencies in ms. */
async function cheapLoad(url, token, clients, done) {
  const latencies = [];
  const paths = ['/health/live', '/lookup-table/operators'];
  await Promise.all(Array.from({ length: clients }, async (_, client) => {
    for (let i = client; !done(); i++) {
      const started = performance.now();
      const res = await fetch(url + paths[i % 2], { headers: { Authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${paths[i % 2]} answered ${res.status}`);
      latencies.push(performance.now() - started);
    }
  }));
  return latencies;
}

async function measure(prepared, readWorkers) {
  const name = `workers-${readWorkers}`;
  const server = await startProcess({
    name,
    nodeArgs: [join(benchDir, 'stall-server.js'), join(dir, 'routes')],
    env: { ...restlayerEnv(prepared.keys, copyDatabase(prepared, name)), Storage__Sqlite__ReadWorkers: String(readWorkers), Storage__QueryTimeoutSeconds: '60' },
    cwd: projectRoot,
    stderrFile: join(dir, `${name}.log`),
    ready: /stall server serving (http:\/\/\S+)/,
  });
  try {
    const clients = Number(opts.clients);
    let count = 0;
    await cheapLoad(server.url, prepared.accessToken, clients, () => count++ >= 400); // warm-up
    const idleUntil = performance.now() + 3_000;
    const idle = await cheapLoad(server.url, prepared.accessToken, clients, () => performance.now() > idleUntil);
    const during = [];
    const slowMs = [];
    for (let round = 0; round < Number(opts.rounds); round++) {
      let finished = false;
      const started = performance.now();
      const slow = fetch(server.url + '/stall/slow').then(async (res) => {
        if (res.status !== 200) throw new Error(`/stall/slow answered ${res.status}: ${await res.text()}`);
        slowMs.push(Math.round(performance.now() - started));
        finished = true;
      });
      during.push(...await cheapLoad(server.url, prepared.accessToken, clients, () => finished));
      await slow;
    }
    return { readWorkers, slowMs, idle: summary(idle), duringSlow: summary(during) };
  } finally {
    await server.stop();
  }
}

try {
  const prepared = await prepareRestlayer(dir);
  const results = [await measure(prepared, 0), await measure(prepared, 2)];
  for (const r of results) r.p99Ratio = Math.round((r.duringSlow.p99 / r.idle.p99) * 100) / 100;
  console.log(JSON.stringify({ count: Number(opts.count), clients: Number(opts.clients), rounds: Number(opts.rounds), results }, null, 2));
} finally {
  killAll();
  rmSync(dir, { recursive: true, force: true });
}
