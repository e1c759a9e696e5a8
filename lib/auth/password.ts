import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { availableParallelism } from 'node:os';
import pLimit from 'p-limit';

/**
 * scrypt (memory-hard) password hashes, stored as `scrypt$logN$r$p$salt$hash` so the cost can rise later
 * without invalidating existing hashes.
 */
const KEY_LENGTH = 32;

/**
 * Each scrypt holds 128·N·r bytes (32 MiB at the default cost) while it runs. More of them at once than there are
 * CPUs to run them adds memory, not speed; and one libuv pool thread stays free for file and DNS work. A burst of
 * logins waits its turn here instead.
 */
const poolThreads = Number(process.env.UV_THREADPOOL_SIZE) || 4;
/** How many scrypt checks one process runs at once; more wait their turn (see CheckGate for how many may). */
export const CHECKS_AT_ONCE = Math.max(1, Math.min(availableParallelism(), poolThreads - 1));
const oneAtATimePerCpu = pLimit(CHECKS_AT_ONCE);

/**
 * The most checks seen waiting for a turn at once in this process since the last reset: what the bound on waiting
 * logins (CheckGate) holds down. For tests and diagnostics.
 */
let peakWaiting = 0;
export const checksWaitingPeak = () => peakWaiting;
export const resetChecksWaitingPeak = () => {
  peakWaiting = oneAtATimePerCpu.pendingCount;
};

function derive(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** logN;
  const derived = oneAtATimePerCpu(() => new Promise<Buffer>((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key)))));
  peakWaiting = Math.max(peakWaiting, oneAtATimePerCpu.pendingCount);
  return derived;
}

export async function hashPassword(password: string, logN = 15): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, logN, 8, 1);
  return ['scrypt', logN, 8, 1, salt.toString('base64'), key.toString('base64')].join('$');
}

/** A hash of a random password: verifying against it costs what a real check costs, for unknown users. */
export const decoyHash = (logN = 15) => hashPassword(randomBytes(16).toString('hex'), logN);

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, logN, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), Number(logN), Number(r), Number(p));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
