// The cost of the request-duration histogram (issue 14): the same restlayer with metrics off (Metrics:Port 0, no
// histogram middleware) and on, in interleaved rounds, on GET /health/live (the cheapest route, where the histogram
// weighs most) and GET /lookup-table/operators (bearer). CPU µs per response is the figure to compare: req/s moves
// with whatever else the machine runs. Usage: node bench/metrics-cost.js [--duration S] [--rounds N]
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureBuilt, ensureInstalled } from './lib/setup.js';

ensureInstalled();
ensureBuilt();
const { runLoad } = await import('./lib/load.js');
const { canPin, killAll, pinSelf, waitIdle } = await import('./lib/processes.js');
const { median } = await import('./lib/report.js');
const { prepareRestlayer, startRestlayer } = await import('./lib/restlayer.js');

const { values } = parseArgs({ options: { duration: { type: 'string', default: '8' }, rounds: { type: 'string', default: '3' } } });
const duration = Number(values.duration);
const rounds = Number(values.rounds);

const freePort = () => new Promise((resolve) => {
  const server = createServer().listen(0, '127.0.0.1', () => {
    const { port } = server.address();
    server.close(() => resolve(port));
  });
});

const pinned = cpus().length >= 2 && canPin();
if (pinned) pinSelf('0');
const dir = mkdtempSync(join(tmpdir(), 'restlayer-metrics-bench-'));
try {
  const prepared = await prepareRestlayer(dir);
  const servers = {
    off: await startRestlayer(prepared, 'metrics-off', { cpus: pinned ? '1' : undefined }),
    on: await startRestlayer(prepared, 'metrics-on', { cpus: pinned ? '1' : undefined, env: { Metrics__Port: String(await freePort()) } }),
  };
  const auth = { authorization: `Bearer ${prepared.accessToken}` };
  const routes = { health: { method: 'GET', path: '/health/live' }, lookup: { method: 'GET', path: '/lookup-table/operators', headers: auth } };
  const results = {};
  for (let round = 0; round <= rounds; round++) {
    for (const [route, request] of Object.entries(routes)) {
      for (const [mode, server] of Object.entries(servers)) {
        // Round 0 warms every pair up and is not counted.
        const r = await runLoad({ url: server.url.replace(/\/$/, ''), pid: server.pid, request }, { duration: round ? duration : 2, connections: 50, pipelining: 1, timeout: 10 });
        await waitIdle(server.pid);
        if (!round) continue;
        (results[`${route} ${mode}`] ??= []).push(r);
        console.log(`round ${round} ${route.padEnd(6)} metrics ${mode.padEnd(3)} ${Math.round(r.requestsPerSecond).toString().padStart(6)} req/s  ` +
          `p50 ${r.latencyMs.p50.toFixed(2)} ms  CPU ${r.serverCpuMicrosPerRequest.toFixed(1)} µs/req  (other load ${r.cpuCores.otherProcesses.toFixed(2)} cores)`);
      }
    }
  }
  console.log('\nmedians:');
  for (const route of Object.keys(routes)) {
    const of = (mode, pick) => median(results[`${route} ${mode}`].map(pick));
    const cpu = (mode) => of(mode, (r) => r.serverCpuMicrosPerRequest);
    const rps = (mode) => of(mode, (r) => r.requestsPerSecond);
    console.log(`${route.padEnd(6)} off ${rps('off').toFixed(0)} req/s ${cpu('off').toFixed(1)} µs/req · on ${rps('on').toFixed(0)} req/s ${cpu('on').toFixed(1)} µs/req · ` +
      `histogram +${(cpu('on') - cpu('off')).toFixed(1)} µs/req (${((cpu('on') / cpu('off') - 1) * 100).toFixed(1)}%)`);
  }
} finally {
  killAll();
  rmSync(dir, { recursive: true, force: true });
}
