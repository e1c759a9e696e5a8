// One load run: autocannon in this process (one thread, no workers) against one server process, with its
// latencies recorded exactly (autocannon's own histogram has 1 ms resolution) and the server's RSS sampled.
import autocannon from 'autocannon';
import { cpuTicks, machineBusyTicks, memoryOf, resetPeak } from './processes.js';

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

/**
 * Drives `target` for `duration` seconds. `target` has `url`, and either `request` (method, path, headers, body)
 * or `requests` (autocannon's array, e.g. with setupRequest to rotate paths), and `pid` of the server process.
 */
export async function runLoad(target, { duration, connections, pipelining, timeout, sampleMs = 100 }) {
  const latencies = new Samples();
  const before = { machine: machineBusyTicks(), server: cpuTicks(target.pid), runner: cpuTicks(process.pid) };
  const peakReset = resetPeak(target.pid);
  let sampledPeak = memoryOf(target.pid).rss;
  const sampler = setInterval(() => {
    sampledPeak = Math.max(sampledPeak, memoryOf(target.pid).rss);
  }, sampleMs);

  // autocannon takes no `path` option: a single request's path goes into the URL.
  const { path = '', ...request } = target.request ?? {};
  const instance = autocannon({
    url: target.url + path,
    connections,
    pipelining,
    duration,
    timeout,
    ...(target.requests ? { requests: target.requests } : request),
  });
  instance.on('response', (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
  const result = await instance;
  clearInterval(sampler);
  const after = { machine: machineBusyTicks(), server: cpuTicks(target.pid), runner: cpuTicks(process.pid) };
  // CPU used meanwhile by the server, by this runner (autocannon), and by everything else on the machine, in cores.
  const cores = (ticks) => ticks / 100 / result.duration;
  const serverCores = cores(after.server - before.server);
  const runnerCores = cores(after.runner - before.runner);
  const otherCores = Math.max(0, cores(after.machine - before.machine) - serverCores - runnerCores);
  const { rss, hwm } = memoryOf(target.pid);
  const peakRss = Math.max(sampledPeak, rss, peakReset ? hwm : 0);

  const sorted = latencies.sorted();
  const ok = result['2xx'];
  return {
    durationS: result.duration,
    requestsPerSecond: ok / result.duration,
    responses: sorted.length,
    ok,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count])),
    latencyMs: {
      p50: percentile(sorted, 50),
      p90: percentile(sorted, 90),
      p99: percentile(sorted, 99),
      max: sorted.length ? sorted[sorted.length - 1] : NaN,
      mean: sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : NaN,
    },
    peakRssBytes: peakRss,
    peakRssSource: peakReset ? 'VmHWM (reset before the run) and VmRSS samples' : 'VmRSS samples',
    throughputBytesPerSecond: result.throughput.average,
    cpuCores: { server: serverCores, loadGenerator: runnerCores, otherProcesses: otherCores },
    // Robust to other load on the machine: the server's CPU time (all threads) per successful response.
    serverCpuMicrosPerRequest: ok ? ((after.server - before.server) * 10_000) / ok : NaN,
  };
}
