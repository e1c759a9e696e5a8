#!/usr/bin/env node
// Summarises V8 CPU profiles (node --cpu-prof): self and inclusive time by function, by file and by package.
//
//   node bench/profile-summary.js PROFILE.cpuprofile [MORE.cpuprofile ...] [--top 15] [--json] [--from-us T --to-us T]
//                                  [--match REGEX]
//
// --match lists the inclusive and self time of the functions whose "name file:line" matches REGEX.
// --from-us/--to-us keep only the samples taken in that window (µs of the monotonic clock, as the profile's startTime
// and process.hrtime.bigint() / 1000n), e.g. the measured run without startup and warm-up.
// Self time is read from the samples and their time deltas (not hitCount × interval). Shares are of the busy time:
// "(idle)" is left out. Inclusive time counts a sample once per distinct function (or file, package) on its stack.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const projectRoot = fileURLToPath(new URL('../', import.meta.url));

/** Where a call frame's code lives: a package name, "restlayer" for the product itself, "node" for Node's own JS. */
export function locate(url) {
  if (!url) return { file: '(native or V8)', pkg: '(native or V8)' };
  if (url.startsWith('node:')) return { file: url, pkg: 'node (core JS)' };
  let path = url;
  if (url.startsWith('file://')) {
    try {
      path = fileURLToPath(url);
    } catch {
      path = url;
    }
  }
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = path.slice(nm + '/node_modules/'.length).split('/');
    const pkg = rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
    return { file: `${pkg}/${rest.slice(pkg.includes('/') ? 2 : 1).join('/')}`, pkg };
  }
  if (path.startsWith(projectRoot)) {
    const file = relative(projectRoot, path);
    return { file, pkg: file.startsWith('dist/') ? `restlayer ${file.split('/').slice(1, 3).join('/').replace(/\.js$/, '')}` : 'restlayer' };
  }
  return { file: path, pkg: path };
}

function frameKey(callFrame) {
  const { functionName, url, lineNumber } = callFrame;
  const { file } = locate(url);
  const name = functionName || (url ? '(anonymous)' : '');
  if (!url) return name || '(unknown)';
  return `${name} ${file}:${lineNumber + 1}`;
}

/**
 * Adds one profile's samples into `acc`; with `window` ({ fromUs, toUs } on the system's monotonic clock, the clock of
 * the profile's startTime and of process.hrtime), only the samples taken within it.
 */
export function accumulate(profile, acc, window = {}) {
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const info = new Map();
  for (const n of profile.nodes) {
    const special = n.callFrame.functionName.startsWith('(') && !n.callFrame.url;
    const { file, pkg } = special ? { file: n.callFrame.functionName, pkg: n.callFrame.functionName } : locate(n.callFrame.url);
    info.set(n.id, { fn: special ? n.callFrame.functionName : frameKey(n.callFrame), file, pkg, idle: n.callFrame.functionName === '(idle)' });
  }
  const { samples, timeDeltas } = profile;
  let at = profile.startTime;
  for (let i = 0; i < samples.length; i++) {
    at += timeDeltas[i] ?? 0;
    if ((window.fromUs !== undefined && at < window.fromUs) || (window.toUs !== undefined && at > window.toUs)) continue;
    // timeDeltas[i] is the time before sample i; the time a sample stands for is the delta to the next one.
    const dt = (timeDeltas[i + 1] ?? timeDeltas[i] ?? 0) / 1000;
    const id = samples[i];
    const self = info.get(id);
    if (!self) continue;
    if (self.idle) {
      acc.idleMs += dt;
      continue;
    }
    acc.busyMs += dt;
    const add = (map, key) => map.set(key, (map.get(key) ?? 0) + dt);
    add(acc.self.fn, self.fn);
    add(acc.self.file, self.file);
    add(acc.self.pkg, self.pkg);
    const seen = { fn: new Set(), file: new Set(), pkg: new Set() };
    for (let node = id; node !== undefined; node = parent.get(node)) {
      const f = info.get(node);
      if (!f || f.fn === '(root)') continue;
      for (const kind of ['fn', 'file', 'pkg']) {
        if (seen[kind].has(f[kind])) continue;
        seen[kind].add(f[kind]);
        add(acc.total[kind], f[kind]);
      }
    }
  }
  return acc;
}

export function emptyAccumulator() {
  const maps = () => ({ fn: new Map(), file: new Map(), pkg: new Map() });
  return { busyMs: 0, idleMs: 0, self: maps(), total: maps() };
}

export function top(map, busyMs, n) {
  return [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, n).map(([key, ms]) => ({ key, ms, share: ms / busyMs }));
}

export function summaryMarkdown(acc, n = 15) {
  const pct = (x) => `${(x * 100).toFixed(1)} %`;
  const section = (title, rows, what) => [
    `### ${title}`,
    '',
    `| ${what} | ms | share of busy time |`,
    '| --- | ---: | ---: |',
    ...rows.map((r) => `| \`${r.key.replace(/\|/g, '\\|')}\` | ${r.ms.toFixed(0)} | ${pct(r.share)} |`),
    '',
  ];
  return [
    `Busy ${(acc.busyMs / 1000).toFixed(2)} s, idle ${(acc.idleMs / 1000).toFixed(2)} s (main thread samples).`,
    '',
    ...section(`Top ${n} functions by self time`, top(acc.self.fn, acc.busyMs, n), 'function (file:line)'),
    ...section(`Top ${n} files by self time`, top(acc.self.file, acc.busyMs, n), 'file'),
    ...section('Self time by package', top(acc.self.pkg, acc.busyMs, n), 'package'),
    ...section('Inclusive time by package (a sample counts once per package on its stack)', top(acc.total.pkg, acc.busyMs, n), 'package'),
    ...section(`Top ${n} functions by inclusive time`, top(acc.total.fn, acc.busyMs, n), 'function (file:line)'),
  ].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      top: { type: 'string', default: '15' },
      json: { type: 'boolean', default: false },
      'from-us': { type: 'string' },
      match: { type: 'string' },
      'to-us': { type: 'string' },
    },
  });
  if (!positionals.length) {
    console.error('usage: node bench/profile-summary.js PROFILE.cpuprofile [...] [--top 15] [--json] [--from-us T --to-us T] [--match REGEX]');
    process.exit(2);
  }
  const window = {
    fromUs: values['from-us'] === undefined ? undefined : Number(values['from-us']),
    toUs: values['to-us'] === undefined ? undefined : Number(values['to-us']),
  };
  const acc = emptyAccumulator();
  for (const file of positionals) accumulate(JSON.parse(readFileSync(file, 'utf8')), acc, window);
  const n = Number(values.top);
  if (values.match) {
    // Inclusive and self time of the functions whose "name file:line" matches, e.g. --match 'jsonwebtoken|koa-session'.
    const re = new RegExp(values.match);
    const rows = [...acc.total.fn.entries()].filter(([key]) => re.test(key)).sort((a, b) => b[1] - a[1]).slice(0, n);
    console.log('| function (file:line) | inclusive ms | inclusive share | self ms | self share |\n| --- | ---: | ---: | ---: | ---: |');
    for (const [key, ms] of rows) {
      const self = acc.self.fn.get(key) ?? 0;
      console.log(`| \`${key}\` | ${ms.toFixed(0)} | ${((ms / acc.busyMs) * 100).toFixed(1)} % | ${self.toFixed(0)} | ${((self / acc.busyMs) * 100).toFixed(1)} % |`);
    }
  } else if (values.json) {
    const out = { busyMs: acc.busyMs, idleMs: acc.idleMs };
    for (const kind of ['self', 'total']) for (const by of ['fn', 'file', 'pkg']) out[`${kind}By${by[0].toUpperCase()}${by.slice(1)}`] = top(acc[kind][by], acc.busyMs, n);
    console.log(JSON.stringify(out, null, 2));
  } else {
    console.log(summaryMarkdown(acc, n));
  }
}
