// `node bench/login-burst.js [--workers N] [--cost LOG2N]`: what one login costs and what bursts of logins get
// (issue 13). Runs `restlayer serve` from dist/ (build first) over a fresh SQLite file, production settings except
// Server:TrustProxy (so each request can name its client address), and prints one JSON object.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values: opts } = parseArgs({ options: { workers: { type: 'string', default: '1' }, cost: { type: 'string', default: '15' } } });
const root = fileURLToPath(new URL('../', import.meta.url));
const cli = join(root, 'dist', 'bin', 'restlayer.js');
const dir = mkdtempSync(join(tmpdir(), 'restlayer-login-burst-'));
const key = () => randomBytes(32).toString('base64');
const env = {
  PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production',
  Storage__Sqlite__Path: join(dir, 'bench.db'), Storage__SampleData: 'false', Log__Level: 'warn', Metrics__Port: '0',
  Server__TrustProxy: 'true', Authentication__PasswordHashCost: opts.cost,
  Authentication__Schemes__Bearer__SigningKeys__0__Issuer: 'restlayer', Authentication__Schemes__Bearer__SigningKeys__0__Value: key(),
  Authentication__Cookie__Keys: key(), AuthConfig__SigningKey: key(),
};
const PASSWORD = 'burst-password-1';

execFileSync(process.execPath, [cli, 'user', 'add', 'burst', '--role', 'User', '--password-stdin'], { env, cwd: dir, input: `${PASSWORD}\n` });
const server = spawn(process.execPath, [cli, 'serve', '--host', '127.0.0.1', '--port', '0', '--workers', opts.workers], { env, cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((resolve, reject) => {
  let out = '';
  server.stdout.setEncoding('utf8').on('data', (chunk) => {
    out += chunk;
    const m = /restlayer is serving (http:\/\/\S+)/.exec(out);
    if (m) resolve(m[1]);
  });
  server.once('close', (code) => reject(new Error(`serve ended (${code})`)));
});

/** CPU seconds (user + system) of the server and its workers, from /proc. */
function serverCpuSeconds() {
  const pids = [server.pid];
  try {
    pids.push(...execFileSync('pgrep', ['-P', String(server.pid)], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number));
  } catch { /* no workers */ }
  let ticks = 0;
  for (const pid of pids) {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / 100;
}

async function login(userName, password, address) {
  const started = performance.now();
  const res = await fetch(`${url}/auth/jwt`, {
    method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': address }, body: JSON.stringify({ userName, password }),
  });
  const body = await res.json();
  return { status: res.status, code: body.messages[0]?.code, retryAfter: res.headers.get('Retry-After'), ms: performance.now() - started };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x) => Math.round(x);
const tally = (replies) => replies.reduce((t, r) => ({ ...t, [r.status]: (t[r.status] ?? 0) + 1 }), {});
let net = 0;
const address = () => `198.51.${Math.floor(++net / 250)}.${(net % 250) + 1}`;

try {
  // Warm-up: route loading, the first scrypt, and the decoy hash unknown names are checked against.
  await login('burst', PASSWORD, address());
  await login('nobody', 'wrong', address());

  // One login at a time: latency and the server's CPU per login.
  const cpu0 = serverCpuSeconds();
  const single = [];
  for (let i = 0; i < 10; i++) single.push((await login('burst', PASSWORD, address())).ms);
  const cpuPerLoginMs = ((serverCpuSeconds() - cpu0) / 10) * 1000;

  // 30 bad logins at once (unknown names, each from its own address: no throttling applies), a good one just after.
  const bad = Array.from({ length: 30 }, (_, i) => login(`nobody-${i}`, 'wrong', address()));
  await new Promise((r) => setTimeout(r, 100));
  // A refused good login retries after Retry-After, as a client should: what counts is the time to the token.
  const goodStarted = performance.now();
  const goodAddress = address();
  let good = await login('burst', PASSWORD, goodAddress);
  const firstGood = good;
  let tries = 1;
  while (good.status === 429 && tries < 20) {
    await new Promise((r) => setTimeout(r, Number(good.retryAfter) * 1000));
    good = await login('burst', PASSWORD, goodAddress);
    tries++;
  }
  const goodMs = performance.now() - goodStarted;
  const badReplies = await Promise.all(bad);
  await new Promise((r) => setTimeout(r, 1500));

  // 40 wrong passwords for one account at once from one address, then the right one.
  const from = address();
  const guesses = await Promise.all(Array.from({ length: 40 }, (_, i) => login('burst', `guess-${i}`, from)));
  const right = await login('burst', PASSWORD, address());

  // 24 failed logins (different accounts) whose X-Forwarded-For starts with a random entry the client wrote.
  const spoofed = [];
  for (let i = 0; i < 24; i++) spoofed.push(await login(`spoof-${i}`, 'wrong', `${randomBytes(4).join('.')}, 203.0.113.9`));

  console.log(JSON.stringify({
    workers: Number(opts.workers), hashCost: Number(opts.cost),
    singleLogin: { medianMs: round(median(single)), cpuMs: round(cpuPerLoginMs) },
    goodLoginDuringBurstOf30Bad: {
      first: { status: firstGood.status, retryAfter: firstGood.retryAfter, ms: round(firstGood.ms) }, tries, finalStatus: good.status, msToToken: round(goodMs),
      badStatuses: tally(badReplies), slowestBadMs: round(Math.max(...badReplies.map((r) => r.ms))),
    },
    burstOf40WrongThenRight: { statuses: tally(guesses), right: right.status },
    spoofedLeftEntry24Failures: tally(spoofed),
  }, null, 1));
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('close', r));
  rmSync(dir, { recursive: true, force: true });
}
