// One load run: autocannon in this process (one thread, no workers) against one server process.
//
// A run has two phases. Ramp: autocannon opens all its connections at once, but a busy Node server accepts one
// connection per event-loop turn (strace shows one accept4 per turn), so on an expensive route the last of 100 new
// connections is only served seconds later. Those first responses measure connection admission, not the route at
// N concurrent connections, so the measured window starts once every connection has had its first response (or
// after `rampCapS`). Measure: `duration` seconds in which requests/s, latencies (exact, autocannon's own histogram
// has 1 ms resolution), status codes, errors, the server's CPU time and its peak RSS are recorded.
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { cpuTicks, machineBusyTicks, memoryOf, processTree, resetPeak, treeCpuTicks, treeRss } from './processes.js';

/** Exact percentile (nearest rank) of sorted values. */
export function percentile(sorted, p) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

class Samples {
  constructor() {
    this.values = new Float64Array(1 << 16);
    this.length = 0;
  }

  push(value) {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = value;
  }

  sorted() {
    return this.values.subarray(0, this.length).sort();
  }
}

const snapshot = (pid) => ({ at: performance.now(), monoUs: Number(process.hrtime.bigint() / 1000n), machine: machineBusyTicks(), server: treeCpuTicks(pid), runner: cpuTicks(process.pid) });

/**
 * Drives `target` (`url`, `pid` of the server, and either `request` {method, path, headers, body} or autocannon's
 * `requests` array) with `connections` connections: ramp, then `duration` seconds measured.
 */
export async function runLoad(target, { duration, connections, pipelining, timeout, rampCapS = 30, sampleMs = 100 }) {
  const latencies = new Samples();
  const statusCodes = {};
  const window = { ok: 0, non2xx: 0, errors: 0 };
  const admitted = new Set();
  let rampMs = NaN;
  let before;
  let after;
  let sampledPeak = 0;
  let peakReset = false;
  let sampler;

  // autocannon takes no `path` option: a single request's path goes into the URL.
  const { path = '', ...request } = target.request ?? {};
  const instance = autocannon({
    url: target.url + path,
    connections,
    pipelining,
    duration: rampCapS + duration + 10,
    timeout,
    ...(target.requests ? { requests: target.requests } : request),
  });
  const started = performance.now();

  const stop = () => {
    after = snapshot(target.pid);
    clearInterval(sampler);
    instance.stop();
  };
  const begin = () => {
    if (before) return;
    clearTimeout(rampTimer);
    rampMs = admitted.size === connections ? performance.now() - started : NaN;
    peakReset = resetPeak(target.pid);
    sampledPeak = treeRss(target.pid);
    sampler = setInterval(() => {
      sampledPeak = Math.max(sampledPeak, treeRss(target.pid));
    }, sampleMs);
    before = snapshot(target.pid);
    setTimeout(stop, duration * 1000);
  };
  const rampTimer = setTimeout(begin, rampCapS * 1000);

  instance.on('response', (client, statusCode, _bytes, responseTime) => {
    if (before && !after) {
      latencies.push(responseTime);
      statusCodes[statusCode] = (statusCodes[statusCode] ?? 0) + 1;
      if (statusCode >= 200 && statusCode < 300) window.ok++;
      else window.non2xx++;
    }
    if (!admitted.has(client)) {
      admitted.add(client);
      if (admitted.size === connections) begin();
    }
  });
  instance.on('reqError', () => {
    if (before && !after) window.errors++;
  });
  const result = await instance;
  clearTimeout(rampTimer);
  if (!after) stop();

  const seconds = (after.at - before.at) / 1000;
  // CPU used in the window by the server, by this runner (autocannon), and by everything else on the machine, in cores.
  const cores = (ticks) => ticks / 100 / seconds;
  const serverCores = cores(after.server - before.server);
  const runnerCores = cores(after.runner - before.runner);
  const otherCores = Math.max(0, cores(after.machine - before.machine) - serverCores - runnerCores);
  const { rss, hwm } = memoryOf(target.pid);
  // Child processes (restlayer's SQLite readers) count too: the main process's peak plus their RSS at the end.
  const childrenRss = processTree(target.pid).slice(1).reduce((sum, p) => sum + memoryOf(p).rss, 0);
  const peakRss = Math.max(sampledPeak, rss + childrenRss, peakReset ? hwm + childrenRss : 0);

  const sorted = latencies.sorted();
  return {
    durationS: seconds,
    // The measured window on the monotonic clock (µs), the clock of V8 CPU profiles' timestamps.
    windowUs: { fromUs: before.monoUs, toUs: after.monoUs },
    rampS: rampMs / 1000,
    connectionsAdmitted: admitted.size,
    requestsPerSecond: window.ok / seconds,
    responses: sorted.length,
    ok: window.ok,
    non2xx: window.non2xx,
    errors: window.errors,
    statusCodes,
    wholeRun: { seconds: result.duration, errors: result.errors, timeouts: result.timeouts, non2xx: result.non2xx, ok: result['2xx'] },
    latencyMs: {
      p50: percentile(sorted, 50),
      p90: percentile(sorted, 90),
      p99: percentile(sorted, 99),
      max: sorted.length ? sorted[sorted.length - 1] : NaN,
      mean: sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : NaN,
    },
    peakRssBytes: peakRss,
    peakRssSource: peakReset ? 'VmHWM (reset when the window opened) plus child processes, and VmRSS samples of the process tree' : 'VmRSS samples of the process tree',
    cpuCores: { server: serverCores, loadGenerator: runnerCores, otherProcesses: otherCores },
    // Robust to other load on the machine: the server's CPU time (all threads) per successful response.
    serverCpuMicrosPerRequest: window.ok ? ((after.server - before.server) * 10_000) / window.ok : NaN,
  };
}
