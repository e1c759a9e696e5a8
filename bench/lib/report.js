// Medians over rounds, ratios to the baseline, the issue's targets, and the table (Markdown, also printed).

export function median(values) {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return NaN;
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/** One target's figures over its rounds: medians of req/s and latencies, the peak RSS of all rounds, summed errors. */
export function summarise(rounds) {
  return {
    requestsPerSecond: median(rounds.map((r) => r.requestsPerSecond)),
    p50Ms: median(rounds.map((r) => r.latencyMs.p50)),
    p99Ms: median(rounds.map((r) => r.latencyMs.p99)),
    cpuMicrosPerRequest: median(rounds.map((r) => r.serverCpuMicrosPerRequest)),
    rampS: median(rounds.map((r) => r.rampS)),
    connectionsAdmitted: Math.min(...rounds.map((r) => r.connectionsAdmitted)),
    peakRssMB: Math.max(...rounds.map((r) => r.peakRssBytes)) / 2 ** 20,
    errors: rounds.reduce((n, r) => n + r.errors, 0),
    non2xx: rounds.reduce((n, r) => n + r.non2xx, 0),
    ok: rounds.reduce((n, r) => n + r.ok, 0),
    cpuCores: {
      server: median(rounds.map((r) => r.cpuCores.server)),
      loadGenerator: median(rounds.map((r) => r.cpuCores.loadGenerator)),
      otherProcesses: median(rounds.map((r) => r.cpuCores.otherProcesses)),
    },
  };
}

export function ratios(summary, baseline) {
  return {
    requestsPerSecond: summary.requestsPerSecond / baseline.requestsPerSecond,
    p50Ms: summary.p50Ms / baseline.p50Ms,
    p99Ms: summary.p99Ms / baseline.p99Ms,
    cpuMicrosPerRequest: summary.cpuMicrosPerRequest / baseline.cpuMicrosPerRequest,
    peakRssMB: summary.peakRssMB / baseline.peakRssMB,
  };
}

/** The issue's targets, where the run measured what they need. */
export function issueTargets(byName) {
  const checks = [];
  const lookup = byName.get('restlayer-lookup')?.summary;
  const koa = byName.get('koa')?.summary;
  const fastifyJwt = byName.get('fastify-jwt')?.summary;
  const list = byName.get('restlayer-list')?.summary;
  if (lookup && koa) {
    const value = lookup.requestsPerSecond / koa.requestsPerSecond;
    const byCpu = koa.cpuMicrosPerRequest / lookup.cpuMicrosPerRequest;
    checks.push({ target: 'restlayer authenticated lookup ≥ 0.9 × bare Koa + @koa/router (no auth), req/s', value: `${value.toFixed(2)} × (by CPU per request: ${byCpu.toFixed(2)} ×)`, met: value >= 0.9 });
  }
  if (lookup && fastifyJwt) {
    const value = lookup.requestsPerSecond / fastifyJwt.requestsPerSecond;
    const byCpu = fastifyJwt.cpuMicrosPerRequest / lookup.cpuMicrosPerRequest;
    checks.push({ target: 'restlayer authenticated lookup ≥ 1.0 × Fastify + @fastify/jwt, req/s', value: `${value.toFixed(2)} × (by CPU per request: ${byCpu.toFixed(2)} ×)`, met: value >= 1.0 });
  }
  const handRolledList = byName.get('fastify-jwt-list')?.summary;
  if (list && handRolledList) {
    const value = list.requestsPerSecond / handRolledList.requestsPerSecond;
    const byCpu = handRolledList.cpuMicrosPerRequest / list.cpuMicrosPerRequest;
    checks.push({ target: 'restlayer list page ≥ 1.0 × the same page hand-rolled on Fastify + @fastify/jwt + better-sqlite3, req/s', value: `${value.toFixed(2)} × (by CPU per request: ${byCpu.toFixed(2)} ×)`, met: value >= 1.0 });
  }
  if (list) {
    checks.push({ target: 'restlayer list route p99 < 50 ms at the run\'s connections', value: `${list.p99Ms.toFixed(1)} ms`, met: list.p99Ms < 50 });
  }
  const restlayers = [...byName.values()].filter((t) => t.name.startsWith('restlayer-'));
  if (restlayers.length) {
    const worst = restlayers.reduce((a, b) => (b.summary.peakRssMB > a.summary.peakRssMB ? b : a));
    checks.push({ target: 'restlayer peak RSS under load < 200 MB (worst restlayer target)', value: `${worst.summary.peakRssMB.toFixed(0)} MB (${worst.name})`, met: worst.summary.peakRssMB < 200 });
  }
  return checks;
}

/**
 * restlayer against the NestJS peer, workload by workload (issue 25): how much more CPU Nest spends per response
 * (above 1: restlayer is cheaper) and restlayer's req/s over Nest's.
 */
export function versusNest(byName) {
  const rows = [];
  const row = (name, peer, kind, adapter, rl, nest) => {
    const cpu = nest.cpuMicrosPerRequest / rl.cpuMicrosPerRequest;
    const rps = rl.requestsPerSecond / nest.requestsPerSecond;
    rows.push({ target: name, peer, kind, adapter, cpuRatio: cpu, rpsRatio: rps, value: `${name}: CPU per request ${cpu.toFixed(2)} × restlayer's, restlayer req/s ${rps.toFixed(2)} × Nest's, peak RSS ${rl.peakRssMB.toFixed(0)} vs ${nest.peakRssMB.toFixed(0)} MB` });
  };
  for (const adapter of ['fastify', 'express']) {
    for (const kind of ['lookup', 'get', 'list', 'put']) {
      const rl = byName.get(`restlayer-${kind}`)?.summary;
      const nest = byName.get(`nest-${adapter}-${kind}`)?.summary;
      if (rl && nest) row(`restlayer-${kind}`, `nest-${adapter}-${kind}`, kind, adapter, rl, nest);
    }
  }
  // The issue's ratio: restlayer with every feature on (the *-own targets) against the better NestJS adapter.
  for (const kind of ['get', 'list', 'put']) {
    const rl = byName.get(`restlayer-${kind}-own`)?.summary;
    const nests = ['fastify', 'express'].map((adapter) => byName.get(`nest-${adapter}-${kind}`)).filter(Boolean);
    if (!rl || !nests.length) continue;
    const best = nests.reduce((a, b) => (b.summary.requestsPerSecond > a.summary.requestsPerSecond ? b : a));
    row(`restlayer-${kind}-own`, `${best.name} (best NestJS)`, kind, best.name.split('-')[1], rl, best.summary);
  }
  return rows;
}

const int = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
const fixed = (n, digits) => (Number.isFinite(n) ? n.toFixed(digits) : '–');
const ms = (n) => (!Number.isFinite(n) ? '–' : n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));

export function table(targets) {
  const head = ['target', 'request', 'req/s', '× Koa', 'p50 ms', '× Koa', 'p99 ms', '× Koa', 'server CPU µs/req', '× Koa', 'peak RSS MB', '× Koa', 'errors', 'non-2xx', 'ramp s', 'CPU server / autocannon / others', 'req/s by round'];
  const rows = targets.map((t) => [
    t.name + (t.baseline ? ' (baseline)' : ''),
    t.request,
    int(t.summary.requestsPerSecond),
    fixed(t.ratio.requestsPerSecond, 2),
    ms(t.summary.p50Ms),
    fixed(t.ratio.p50Ms, 2),
    ms(t.summary.p99Ms),
    fixed(t.ratio.p99Ms, 2),
    int(t.summary.cpuMicrosPerRequest),
    fixed(t.ratio.cpuMicrosPerRequest, 2),
    fixed(t.summary.peakRssMB, 0),
    fixed(t.ratio.peakRssMB, 2),
    String(t.summary.errors),
    String(t.summary.non2xx),
    Number.isFinite(t.summary.rampS) ? fixed(t.summary.rampS, 1) : `${t.summary.connectionsAdmitted} conn. only`,
    [t.summary.cpuCores.server, t.summary.cpuCores.loadGenerator, t.summary.cpuCores.otherProcesses].map((c) => fixed(c, 2)).join(' / '),
    t.rounds.map((r) => int(r.requestsPerSecond)).join(' / '),
  ]);
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map((_, i) => (i >= 2 && i <= 15 ? '---:' : '---'))), ...rows.map(line)].join('\n');
}

export function markdown(report) {
  const o = report.options;
  const lines = [
    `# restlayer benchmark (${report.mode} run)`,
    '',
    `${report.finishedAt} · store ${report.store ?? 'sqlite'} · restlayer ${report.restlayer.commit}${report.restlayer.dirty ? ' (with uncommitted changes)' : ''} · ` +
      `Node ${report.machine.node} · ${report.machine.cpus} × ${report.machine.cpuModel} · ${report.machine.memoryGB} GB`,
    '',
    `autocannon ${report.versions.autocannon} in the runner process (one thread, no workers) · ${o.connections} connections · ` +
      `pipelining ${o.pipelining} · ${o.duration} s per run · warm-up ${o.warmup} s per target · ${o.rounds} interleaved rounds, medians shown ` +
      `(peak RSS: the highest of the rounds; errors and non-2xx: summed) · ${report.pinning}`,
    '',
    `Every lookup target answers the same request (\`GET /lookup-table/${o.table}\` with the same bearer token) with the ` +
      `same ${report.payloadBytes} bytes: restlayer's own response body, fetched at start and checked byte for byte.`,
    '',
    table(report.targets),
    '',
    '× Koa: the figure divided by bare Koa\'s; above 1 is better for req/s, worse for latency, CPU per request and RSS. ' +
      'Each run opens its connections at once; a busy Node server accepts one connection per event-loop turn, so the ' +
      'window is measured only once every connection has had a first response (ramp s: how long that took, median; ' +
      'the first responses are not counted). Figures are thus at the full number of concurrent connections. ' +
      'Server CPU µs/req: the server process\'s CPU time (all its threads, /proc/PID/stat) divided by its successful ' +
      'responses; unlike req/s and latency it hardly depends on what else the machine runs, so its ratio is the steadiest comparison. ' +
      'CPU: cores used during the measured runs (medians) by the server process, by the runner (autocannon), and by every ' +
      'other process on the machine (noise from outside the benchmark). A server near 1.00 on its pinned CPU is saturated; ' +
      'autocannon near 1.00 means the load generator, not the server, is the limit. ' +
      `Load average when the run started: ${report.machine.loadAverageAtStart.join(', ')}.`,
    '',
    '## The issue\'s targets',
    '',
    '| target | measured | met |',
    '| --- | ---: | --- |',
    ...report.issueTargets.map((c) => `| ${c.target} | ${c.value} | ${c.met ? 'yes' : '**no**'} |`),
    '',
    ...(report.versusNest?.length
      ? ['## restlayer against NestJS (same workload, same store)', '',
          'The `-own` rows are restlayer with every feature on (permission check through a scoped grant, the SalesPerson\'s record scope, the audit entry of each write, the request log) against the better NestJS adapter, which does none of that.', '',
          '| restlayer target | NestJS target | Nest CPU µs/req ÷ restlayer\'s | restlayer req/s ÷ Nest\'s |', '| --- | --- | ---: | ---: |',
          ...report.versusNest.map((c) => `| ${c.target} | ${c.peer} | ${c.cpuRatio.toFixed(2)} | ${c.rpsRatio.toFixed(2)} |`), '']
      : []),
    '## Servers',
    '',
    ...report.targets.map((t) => `- \`${t.name}\`: ${t.description}`),
    '',
    `Versions: ${Object.entries(report.versions).map(([k, v]) => `${k} ${v}`).join(', ')}.`,
    '',
  ];
  return lines.join('\n');
}
